"""gh-aw/aw-harness.md against gh-aw's behavior-defined engine fields, and the example using it.

Field lists: gh-aw ``pkg/workflow/engine_definition.go`` (``EngineDefinition``,
``EngineBehaviorDefinition``, ``EngineExecutionDefinition``, ``EngineNetworkDefinition``) and
``behavior_defined_engine.go`` @4ade037 (secret strategies, provider-env modes, how the command is
built); notes gh-aw-runtime §6. Frontmatter keys next to ``engine``: pydantic-ai's importable
engine (``src/pydantic_ai_harness/gh-aw/pydantic.md``).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from typing import Any

import pytest

from aw_action.cli import SUBCOMMANDS
from aw_action.ghaw.invocation import MODEL_ENV
from tests.awf.rig import DEFINITION, REPO, engine_command, frontmatter

ENGINE_FIELDS = {
    "id", "display-name", "description", "experimental", "version", "detection-engine", "mcp",
    "gh-skill-agent-name", "runtime-id", "provider", "models", "auth", "options", "behaviors",
}  # fmt: skip
BEHAVIOR_FIELDS = {
    "secret-strategy", "supported-env-var-keys", "capabilities", "manifest", "network", "installation",
    "plugins", "config-file", "execution", "mcp", "harness-script", "log-parser",
}  # fmt: skip
EXECUTION_FIELDS = {
    "command-name", "args", "step-name", "model-env-var", "model-env-provider-prefix", "model-flag",
    "mcp-config-env-var", "mcp-config-flag", "write-timestamp", "provider-env-mode", "env",
}  # fmt: skip
NETWORK_FIELDS = {"defaults", "provider-domains", "default-provider"}
FRONTMATTER_FIELDS = {"engine", "runtimes", "pre-agent-steps"}
CAPABILITY_FIELDS = {
    "tools-allowlist", "max-turns", "web-search", "max-continuations", "native-agent-file", "bare-mode",
    "bash-command-allowlist",
}  # fmt: skip
SECRET_STRATEGIES = {"universal-llm-consumer", "gemini-api-key"}
UNIVERSAL_PROVIDERS = {"copilot", "anthropic", "openai", "codex"}
"""gh-aw's ``resolveUniversalLLMBackendFromModel``: the providers a ``provider/model`` may name."""
EXAMPLE = REPO / "examples" / "gh-aw" / "issue-triage.md"


@pytest.fixture(scope="module")
def definition() -> dict[str, Any]:
    return frontmatter(DEFINITION)


def pyproject_version() -> str:
    version: str = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    return version


def test_only_fields_gh_aw_knows(definition: dict[str, Any]) -> None:
    assert set(definition) <= FRONTMATTER_FIELDS
    engine = definition["engine"]
    assert set(engine) <= ENGINE_FIELDS
    behaviors = engine["behaviors"]
    assert set(behaviors) <= BEHAVIOR_FIELDS
    assert set(behaviors["execution"]) <= EXECUTION_FIELDS
    assert set(behaviors["network"]) <= NETWORK_FIELDS
    assert set(behaviors["capabilities"]) <= CAPABILITY_FIELDS
    assert behaviors["secret-strategy"] in SECRET_STRATEGIES
    assert behaviors["execution"]["provider-env-mode"] == "universal-llm-consumer"
    assert set(behaviors["network"]["provider-domains"]) == UNIVERSAL_PROVIDERS


def test_execution_runs_the_gh_aw_subcommand_with_the_prompt_last(definition: dict[str, Any]) -> None:
    execution = definition["engine"]["behaviors"]["execution"]
    args = execution["args"]
    assert args[0] in SUBCOMMANDS and SUBCOMMANDS[args[0]] == "aw_action.gh_aw_step:main"
    assert args[-1] == "--", "the prompt gh-aw appends cannot be read as an option"
    assert execution["model-env-var"] == MODEL_ENV
    assert "model-flag" not in execution, "gh-aw would put it after '--', where it reads as prompt text"
    command = engine_command(definition, "/tmp/gh-aw/aw-prompts/prompt.txt")
    assert command == 'aw-harness gh-aw -- "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"'
    assert shlex.split(command)[:3] == ["aw-harness", "gh-aw", "--"]


def test_the_step_env_holds_no_secret_and_points_where_gh_aw_reads(definition: dict[str, Any]) -> None:
    env = definition["engine"]["behaviors"]["execution"]["env"]
    assert all(isinstance(v, str) for v in env.values()), "rendered verbatim into the step's env"
    assert not [v for v in env.values() if "secrets." in v], "execution.env is not filtered for secrets"
    assert env["GITHUB_STEP_SUMMARY"] == "/tmp/gh-aw/agent-step-summary.md", "gh-aw appends this file"
    assert env["AWF_REFLECT_ENABLED"] == "1" and env["GITHUB_AW"] == "true"
    # gh-aw's log-parser step writes /tmp/gh-aw/agent-session.jsonl itself; the harness's records
    # live in a folder of their own inside one the agent artifact uploads whole (its path list
    # holds /tmp/gh-aw/mcp-logs/, reference/gh-aw/compiled/daily-code-debt-aider.agent-job.excerpt.txt).
    assert env["AW_OUTPUT_DIR"] == "/tmp/gh-aw/mcp-logs/aw-harness"


def test_the_definition_is_marked_experimental_and_guards_the_harnesss_own_files(definition: dict[str, Any]) -> None:
    engine = definition["engine"]
    assert engine["experimental"] is True, "as gh-aw's catalog marks engines not yet supported"
    manifest = engine["behaviors"]["manifest"]
    assert manifest == {"files": [".github/aw-harness.json"], "path-prefixes": [".github/aw-harness/"]}
    docs = (REPO / "docs" / "gh-aw.md").read_text()
    assert ".github/aw-harness.json" in docs and ".github/aw-harness/" in docs, "the docs say where they go"


def test_threat_detection_and_capabilities_are_declared(definition: dict[str, Any]) -> None:
    engine = definition["engine"]
    assert engine["detection-engine"] == "copilot", "a built-in engine: copilot, claude or codex (the schema's enum)"
    capabilities = engine["behaviors"]["capabilities"]
    assert capabilities == {"max-turns": True, "tools-allowlist": True}
    # bash-command-allowlist is what gh-aw's compile check consults for tools.bash lists
    # (agent_validation.go validateBashCommandAllowlistSupport), and a behavior-defined engine's
    # step is never given the list (buildBehaviorDefinedExecutionEnv; aw_info.json has none):
    # declaring it would let a workflow believe in a restriction the harness never sees.
    assert "bash-command-allowlist" not in capabilities and "bash-disable" not in capabilities


def test_the_log_parser_and_nothing_node_based_runs_the_engine(definition: dict[str, Any]) -> None:
    behaviors = definition["engine"]["behaviors"]
    assert "function parseLog(logContent)" in behaviors["log-parser"]
    assert "harness-script" not in behaviors, "the prompt reaches the harness as a file, with no Node launcher"


def test_the_body_is_a_comment_so_importing_adds_nothing_to_the_prompt() -> None:
    text = DEFINITION.read_text()
    body = text[text.index("\n---\n", 4) + 5 :].strip()
    assert body.startswith("<!--") and body.endswith("-->")


@pytest.fixture(scope="module")
def example() -> dict[str, Any]:
    return frontmatter(EXAMPLE)


def test_the_example_imports_a_local_copy_of_this_definition(
    example: dict[str, Any], definition: dict[str, Any]
) -> None:
    assert example["imports"] == ["shared/aw-harness.md"], "a path next to the workflow, as gh-aw's own workflows do"
    assert example["engine"]["id"] == definition["engine"]["id"]


def test_the_example_gives_the_harness_the_steps_deadline(example: dict[str, Any]) -> None:
    # gh-aw exports GH_AW_TIMEOUT_MINUTES for Pi only, not for behavior-defined engines; the
    # compiled step's timeout-minutes is not visible inside it, so the workflow repeats it.
    assert example["engine"]["env"]["GH_AW_TIMEOUT_MINUTES"] == str(example["timeout-minutes"])


def test_the_docs_import_a_remote_copy_at_this_release_tag() -> None:
    docs = (REPO / "docs" / "gh-aw.md").read_text()
    tags = set(re.findall(r"[\w.-]+/aw-harness/gh-aw/aw-harness\.md@(v[\w.]+)", docs))
    assert tags == {f"v{pyproject_version()}"}
    assert re.search(r"^ *imports:\n *- shared/aw-harness\.md$", docs, re.M), "the local copy, too"


def test_the_example_model_is_one_gh_aw_accepts_for_this_engine(example: dict[str, Any]) -> None:
    provider, _, model = example["engine"]["model"].partition("/")
    assert provider in UNIVERSAL_PROVIDERS and model


def test_the_example_gets_its_tools_as_commands(example: dict[str, Any]) -> None:
    tools = example["tools"]
    assert tools["cli-proxy"] is True, "the harness speaks no MCP: MCP servers reach it as CLI wrappers"
    assert tools["github"]["mode"] == "gh-proxy"
    body = EXAMPLE.read_text().split("\n---\n", 1)[1]
    for kind in example["safe-outputs"]:
        assert f"safeoutputs {kind.replace('-', '_')}" in body, f"the prompt shows the {kind} command"
