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
import subprocess
import tomllib
from pathlib import Path
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
    assert behaviors["secret-strategy"] in SECRET_STRATEGIES
    assert behaviors["execution"]["provider-env-mode"] == "universal-llm-consumer"
    assert set(behaviors["network"]["provider-domains"]) == UNIVERSAL_PROVIDERS


def run_install_step(definition: dict[str, Any], tmp: Path, **env: str) -> list[str]:
    """Run the pre-agent step with ``python3`` and ``aw-harness`` stubbed; the pip arguments."""
    [install] = definition["pre-agent-steps"]
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    log = tmp / "python3-args"
    (bin_dir / "python3").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\n')
    (bin_dir / "aw-harness").write_text("#!/bin/sh\nexit 0\n")
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    engine_version = str(definition["engine"]["version"])
    step_env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "GH_AW_ENGINE_VERSION": engine_version, **env}
    proc = subprocess.run(["bash", "-e", "-c", install["run"]], env=step_env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return log.read_text().splitlines()


def test_the_definition_pins_the_release_it_installs(definition: dict[str, Any], tmp_path: Path) -> None:
    assert definition["engine"]["version"] == pyproject_version()
    args = run_install_step(definition, tmp_path)
    assert args[:4] == ["-P", "-m", "pip", "install"] and args[-1] == f"aw-harness=={pyproject_version()}"
    assert "--user" not in args, "into the runtimes' interpreter, whose bin directory is on PATH inside AWF"
    assert definition["runtimes"]["python"]["version"] >= "3.11"


def test_the_install_spec_can_be_replaced_before_a_pypi_release(definition: dict[str, Any], tmp_path: Path) -> None:
    spec = "git+https://github.com/org/aw-harness@v0.1.0"
    assert run_install_step(definition, tmp_path, AW_HARNESS_PIP_SPEC=spec)[-1] == spec


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
    assert env["AW_OUTPUT_DIR"] == "/tmp/gh-aw", "agent-session.jsonl goes where gh-aw's agent artifact takes it"


def test_no_log_parser_so_gh_aw_never_rewrites_agent_session_jsonl(definition: dict[str, Any]) -> None:
    # log_parser_bootstrap.cjs rewrites /tmp/gh-aw/agent-session.jsonl from any parser that returns
    # logEntries; the harness writes that file itself (docs/gh-aw.md), so no parser is declared.
    behaviors = definition["engine"]["behaviors"]
    assert "log-parser" not in behaviors and "harness-script" not in behaviors


def test_the_body_is_a_comment_so_importing_adds_nothing_to_the_prompt() -> None:
    text = DEFINITION.read_text()
    body = text[text.index("\n---\n", 4) + 5 :].strip()
    assert body.startswith("<!--") and body.endswith("-->")


@pytest.fixture(scope="module")
def example() -> dict[str, Any]:
    return frontmatter(EXAMPLE)


def test_the_example_imports_this_definition_at_the_release(
    example: dict[str, Any], definition: dict[str, Any]
) -> None:
    [ref] = [i for i in example["imports"] if str(i).split("@")[0].endswith("gh-aw/aw-harness.md")]
    assert re.fullmatch(r"[\w.-]+/aw-harness/gh-aw/aw-harness\.md@v" + re.escape(pyproject_version()), ref)
    assert example["engine"]["id"] == definition["engine"]["id"]


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
