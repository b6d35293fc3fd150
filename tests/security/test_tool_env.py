"""The tools' environment, from the full environment a container action's process holds."""

from __future__ import annotations

from aw_action.security.confinement.tool_env import GithubAccess, github_access, refused_grant, tool_environment

# What the entrypoint sees on a runner (../shared/notes/actions-runtime.md §2), plus the keys
# and a secret copied into an innocent-looking variable.
RUNNER_ENV = {
    "PATH": "/opt/aw/bin:/usr/bin:/bin",
    "HOME": "/github/home",
    "CI": "true",
    "GITHUB_ACTIONS": "true",
    "GITHUB_REPOSITORY": "octo/repo",
    "GITHUB_WORKSPACE": "/github/workspace",
    "GITHUB_EVENT_PATH": "/github/workflow/event.json",
    "GITHUB_API_URL": "https://api.github.com",
    "RUNNER_TEMP": "/github/runner_temp",
    "AW_OUTPUT_DIR": "/github/runner_temp/aw-harness",
    "GITHUB_TOKEN": "ghs_tokenvalue0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-api03-planted-anthropic",
    "OPENAI_API_KEY": "sk-proj-planted-openai-key",
    "GEMINI_API_KEY": "planted-gemini-key-123",
    "ACTIONS_RUNTIME_TOKEN": "eyJhbGciOi.runtime.planted",
    "ACTIONS_RUNTIME_URL": "https://pipelines.actions.githubusercontent.com/abc/",
    "ACTIONS_RESULTS_URL": "https://results-receiver.actions.githubusercontent.com/",
    "ACTIONS_CACHE_URL": "https://artifactcache.actions.githubusercontent.com/abc/",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJ.oidc.request.planted",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://pipelines.actions.githubusercontent.com/oidc?x=1",
    "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20otlp-planted",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-api-key=otlp-traces-planted",
    "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example",
    "INPUT_ANTHROPIC-API-KEY": "sk-ant-api03-planted-anthropic",
    "INPUT_MAX-TURNS": "5",
    "DB_PASSWORD": "hunter2hunter2",
    "MY_SETTING": "prefix-sk-proj-planted-openai-key-suffix",
    "MAX_TOKENS": "100000",
}
SECRETS = ["sk-proj-planted-openai-key", "sk-ant-api03-planted-anthropic"]
KEPT = {
    "PATH",
    "HOME",
    "CI",
    "GITHUB_ACTIONS",
    "GITHUB_REPOSITORY",
    "GITHUB_WORKSPACE",
    "GITHUB_EVENT_PATH",
    "GITHUB_API_URL",
    "RUNNER_TEMP",
}
"""The core set's: the harness's own (``AW_OUTPUT_DIR``), OTel's endpoint and ``MAX_TOKENS`` are
not the agent's (issue 29: the environment is an allow-list)."""


def test_without_github_access_tools_get_no_credential_at_all() -> None:
    env = tool_environment(RUNNER_ENV, github=github_access(None), secrets=SECRETS)
    assert set(env) == KEPT
    for value in env.values():
        assert "planted" not in value and "ghs_" not in value


def test_with_github_access_only_the_github_token_is_added() -> None:
    env = tool_environment(
        {**RUNNER_ENV, "GH_TOKEN": "ghs_tokenvalue0123456789"},
        github=github_access({"toolsets": ["repos"]}),
        secrets=SECRETS,
    )
    assert set(env) == KEPT | {"GITHUB_TOKEN", "GH_TOKEN"}
    assert env["GITHUB_TOKEN"] == "ghs_tokenvalue0123456789"


def test_a_secret_copied_into_any_variable_is_withheld() -> None:
    env = tool_environment(
        {"LANG": "x", "TERM": "has hunter2hunter2 inside", "MINE": "has hunter2hunter2 too"},
        github=GithubAccess(False, ""),
        secrets=["hunter2hunter2"],
        grant=["MINE"],
    )
    assert env == {"LANG": "x"}


def test_short_secrets_are_not_searched_inside_values() -> None:
    """A 4-character 'secret' would withhold every variable that happens to contain it."""
    env = tool_environment({"LANG": "C.UTF-8"}, github=GithubAccess(False, ""), secrets=["UTF-"])
    assert env == {"LANG": "C.UTF-8"}


def test_github_access_is_opt_in_and_says_why() -> None:
    assert github_access(None) == GithubAccess(False, "the config does not grant GitHub access (no tools.github)")
    assert not github_access(False).granted
    granted = github_access({"toolsets": ["repos", "issues"]})
    assert granted.granted and "toolsets: repos, issues" in granted.reason
    assert github_access(True).granted


# -- issue 29: the allow-list ---------------------------------------------------------------
LEAKY = {
    "GH_PAT": "ghp_" + "A1b2C3d4E5" * 4,
    "NPM_CONFIG__AUTH": "bnBtOnBsYW50ZWQtbnBtLWF1dGg=",
    "OPENAI_ADMIN_KEY": "sk-admin-planted0123456789abcdef",
    "DATABASE_URL": "postgres://app:planted-db-pw@db.internal:5432/app",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T000/B000/plantedslackwebhook00",
    "PYTHONSAFEPATH": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "AW_OUTPUT_DIR": "/tmp/gh-aw",
    "INPUT_MODEL": "faux",
    "ACTIONS_CACHE_MODE": "read-write",
}
TOOLCHAIN = {
    "JAVA_HOME": "/opt/java/21",
    "JAVA_HOME_17_X64": "/opt/java/17",
    "GOROOT": "/opt/go",
    "pythonLocation": "/opt/py/3.12",
    "Python3_ROOT_DIR": "/opt/py/3.12",
    "PKG_CONFIG_PATH": "/opt/py/3.12/lib/pkgconfig",
    "DOTNET_ROOT": "/opt/dotnet",
    "CARGO_HOME": "/opt/cargo",
    "RUSTUP_HOME": "/opt/rustup",
    "VIRTUAL_ENV": "/github/workspace/.venv",
    "LC_ALL": "C.UTF-8",
}


def test_the_runners_leaky_variables_and_the_harnesss_own_never_reach_the_tools() -> None:
    env = tool_environment({**RUNNER_ENV, **LEAKY}, github=github_access(None), secrets=SECRETS)
    assert set(env) == KEPT
    assert not set(LEAKY) & set(env)


def test_toolchain_variables_reach_the_tools() -> None:
    env = tool_environment({**RUNNER_ENV, **TOOLCHAIN}, github=github_access(None), secrets=SECRETS)
    assert set(env) == KEPT | set(TOOLCHAIN)


def test_a_granted_variable_reaches_the_tools_and_a_core_one_holding_a_token_does_not() -> None:
    env = tool_environment(
        {"PATH": "/bin", "MY_FLAG": "on", "OTHER": "x", "HTTPS_PROXY": "http://u:pw-planted@proxy:3128"},
        github=github_access(None),
        grant=["MY_FLAG"],
    )
    assert env == {"PATH": "/bin", "MY_FLAG": "on"}


def test_the_harnesss_and_the_runners_own_cannot_be_granted() -> None:
    env = tool_environment(
        {"PYTHONSAFEPATH": "1", "AW_OUTPUT_DIR": "/o", "ACTIONS_RUNTIME_TOKEN": "t", "GITHUB_TOKEN": "ghs_x"},
        github=github_access(None),
        grant=["PYTHONSAFEPATH", "AW_OUTPUT_DIR", "ACTIONS_RUNTIME_TOKEN", "GITHUB_TOKEN"],
    )
    assert env == {}
    for name in ("PYTHONSAFEPATH", "AW_X", "INPUT_MODEL", "ACTIONS_X", "GITHUB_TOKEN", "ANTHROPIC_API_KEY", "A-B"):
        assert refused_grant(name), name
    assert refused_grant("MY_FLAG") is None
