"""The table of what the agent's tools' environment may hold (``security/confinement/tool_env.py``
applies it): the core set, what toolchain setup steps export, and what is never passed."""

from __future__ import annotations

import re

from aw_action.environment.runner import RUNTIME_CREDENTIALS, RUNTIME_VARS

__all__ = [
    "CORE",
    "CORE_PREFIXES",
    "HARNESS_OWN",
    "NEVER_PREFIXES",
    "RUNTIME_CREDENTIALS",
    "RUNTIME_VARS",
    "TOOLCHAIN",
    "TOOLCHAIN_PATTERN",
    "WITHHELD_PREFIXES",
]


def _words(text: str) -> list[str]:
    return text.split()


CORE = frozenset(
    {
        *_words("PATH HOME LANG LANGUAGE TERM COLORTERM USER LOGNAME SHELL TMPDIR TMP TEMP TZ PWD CI"),
        *_words("RUNNER_OS RUNNER_ARCH RUNNER_NAME RUNNER_ENVIRONMENT RUNNER_TEMP RUNNER_TOOL_CACHE"),
        *_words("RUNNER_WORKSPACE RUNNER_DEBUG GITHUB_ACTIONS"),
        # the runner's GITHUB_* facts (actions/runner GitHubContext.cs), GITHUB_TOKEN never among them
        *_words("GITHUB_ACTION GITHUB_ACTION_PATH GITHUB_ACTION_REF GITHUB_ACTION_REPOSITORY GITHUB_ACTOR"),
        *_words("GITHUB_ACTOR_ID GITHUB_API_URL GITHUB_BASE_REF GITHUB_ENV GITHUB_EVENT_NAME GITHUB_EVENT_PATH"),
        *_words("GITHUB_GRAPHQL_URL GITHUB_HEAD_REF GITHUB_JOB GITHUB_OUTPUT GITHUB_PATH GITHUB_REF"),
        *_words("GITHUB_REF_NAME GITHUB_REF_PROTECTED GITHUB_REF_TYPE GITHUB_REPOSITORY GITHUB_REPOSITORY_ID"),
        *_words("GITHUB_REPOSITORY_OWNER GITHUB_REPOSITORY_OWNER_ID GITHUB_RETENTION_DAYS GITHUB_RUN_ATTEMPT"),
        *_words("GITHUB_RUN_ID GITHUB_RUN_NUMBER GITHUB_SERVER_URL GITHUB_SHA GITHUB_STATE GITHUB_STEP_SUMMARY"),
        *_words("GITHUB_TRIGGERING_ACTOR GITHUB_WORKFLOW GITHUB_WORKFLOW_REF GITHUB_WORKFLOW_SHA"),
        *_words("GITHUB_WORKSPACE GITHUB_AW GH_AW_PHASE GH_AW_VERSION GH_AW_SAFE_OUTPUTS"),
        # the tools' own settings that name no secret: gh's repository and host, colours
        *_words("GH_REPO GH_HOST GH_PROMPT_DISABLED GH_NO_UPDATE_NOTIFIER NO_COLOR FORCE_COLOR"),
        # the network: proxies (AWF's included) and CA bundles
        *_words("HTTP_PROXY HTTPS_PROXY NO_PROXY ALL_PROXY http_proxy https_proxy no_proxy all_proxy"),
        *_words("SSL_CERT_FILE SSL_CERT_DIR NODE_EXTRA_CA_CERTS REQUESTS_CA_BUNDLE CURL_CA_BUNDLE"),
    }
)
"""The core set every run's tools get (``CORE_PREFIXES`` too)."""
CORE_PREFIXES = ("LC_",)
TOOLCHAIN = frozenset(
    {
        *_words("GOROOT GOPATH GOBIN GOTOOLCHAIN GOFLAGS pythonLocation PKG_CONFIG_PATH LD_LIBRARY_PATH"),
        *_words("DOTNET_ROOT DOTNET_INSTALL_DIR DOTNET_NOLOGO DOTNET_CLI_TELEMETRY_OPTOUT CARGO_HOME RUSTUP_HOME"),
        *_words("RUSTUP_TOOLCHAIN VIRTUAL_ENV CONDA CONDA_PREFIX ANDROID_HOME ANDROID_SDK_ROOT ANDROID_NDK_HOME"),
        *_words("ANDROID_NDK_ROOT GRADLE_HOME GRADLE_USER_HOME M2_HOME MAVEN_HOME MAVEN_OPTS NVM_DIR PNPM_HOME"),
        *_words("BUN_INSTALL DENO_INSTALL DENO_DIR GEM_HOME GEM_PATH BUNDLE_PATH RBENV_ROOT PYENV_ROOT"),
        *_words("PIPX_HOME PIPX_BIN_DIR POETRY_HOME UV_PYTHON_INSTALL_DIR COMPOSER_HOME SWIFT_PATH FLUTTER_ROOT"),
        *_words("CHROME_BIN CHROMEWEBDRIVER GECKOWEBDRIVER EDGEWEBDRIVER SELENIUM_JAR_PATH VCPKG_ROOT"),
    }
)
"""What toolchain setup steps export (setup-java, setup-go, setup-python, setup-dotnet, rustup, ...)."""
TOOLCHAIN_PATTERN = re.compile(r"^(JAVA_HOME(_\w+)?|Python\d*_ROOT_DIR|GOROOT_\w+|ANT_HOME|ANDROID_NDK_\w+)$")
HARNESS_OWN = frozenset(
    _words("PYTHONSAFEPATH PYTHONDONTWRITEBYTECODE PYTHONUNBUFFERED PIP_NO_CACHE_DIR PIP_DISABLE_PIP_VERSION_CHECK")
)
"""The image's settings for the harness's own Python: never the agent's."""
NEVER_PREFIXES = ("INPUT_", "ACTIONS_", "AW_")
"""The action's inputs, the Actions runtime and the harness's own variables: never the agent's."""
WITHHELD_PREFIXES = ("INPUT_", "ACTIONS_")
"""Withheld unless granted GitHub access (its tokens only): the action's inputs, the Actions runtime."""
