"""A local AWF rig: the agent step of a compiled gh-aw workflow, with our engine definition.

``AgentStep`` lays out what the compiled step and AWF give the engine (notes gh-aw-runtime §1, §2;
gh-aw ``pkg/workflow/behavior_defined_engine.go`` ``buildBehaviorDefinedExecutionEnv``,
``universal_llm_consumer_engine.go``; gh-aw-firewall ``src/services/credentials/*``):

- ``/tmp/gh-aw`` (here ``<tmp>/gh-aw``) holds the prompt, the step summary and the start file;
- ``${RUNNER_TEMP}/gh-aw`` is read-only: ``safeoutputs/outputs.jsonl`` (``GH_AW_SAFE_OUTPUTS``),
  ``mcp-cli/bin`` with a ``safeoutputs`` stub that records each call, first on ``PATH``, and
  ``awf-config.json`` as the compiled step writes it (``apiProxy.enableTokenSteering`` true, gh-aw's
  default with a credit budget: ``pkg/workflow/awf_config_build.go``; ``token_steering`` turns it off);
- the step env: the definition's ``execution.env``, the model in its ``model-env-var``,
  ``GH_AW_LLM_PROVIDER``, ``GH_AW_MAX_AI_CREDITS`` and friends, ``TRACEPARENT``;
- AWF's env on top: no real key, each provider's base URL at the loopback ``AwfProxy`` and its
  placeholder, ``HTTP(S)_PROXY`` at a Squid stand-in and ``NO_PROXY`` listing the proxy host.

The engine command is built from the definition the way gh-aw builds it (``command-name``, the
shell-quoted ``args``, then ``"$(cat <prompt file>)"``) and run by ``bash -c``.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.awf.proxy import PLACEHOLDERS, AwfProxy

REPO = Path(__file__).resolve().parents[2]
DEFINITION = REPO / "gh-aw" / "aw-harness.md"
LLM_PROVIDER = {"copilot": "github", "anthropic": "anthropic", "openai": "openai"}
"""gh-aw's ``GH_AW_LLM_PROVIDER`` for a ``provider/`` model (universal_llm_consumer_engine.go)."""

STUB = """#!{python}
import json, sys
record = {{"argv": sys.argv[1:], "stdin": "" if sys.stdin.isatty() else sys.stdin.read()}}
with open({log!r}, "a", encoding="utf-8") as f:
    f.write(json.dumps(record) + "\\n")
print(json.dumps({{"result": "ok", "tool": sys.argv[1] if len(sys.argv) > 1 else None}}))
"""


def frontmatter(path: Path = DEFINITION) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), f"{path} must start with YAML frontmatter"
    block = text[4 : text.index("\n---\n", 4)]
    data: dict[str, Any] = YAML(typ="safe").load(block)
    return data


def engine_command(definition: dict[str, Any], prompt_file: str) -> str:
    """``buildBehaviorDefinedEngineCommand`` without a harness script: name, args, prompt text."""
    execution = definition["engine"]["behaviors"]["execution"]
    parts = [execution["command-name"], shlex.join(execution.get("args", []))]
    return " ".join([*[p for p in parts if p], f'"$(cat {prompt_file})"'])


@dataclass
class StepRun:
    returncode: int
    stdout: str
    stderr: str
    step: AgentStep

    @property
    def result(self) -> dict[str, Any]:
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        assert len(lines) == 1, f"stdout must hold one JSON object: {self.stdout!r}\nstderr: {self.stderr[-3000:]}"
        value: dict[str, Any] = json.loads(lines[0])
        return value

    def events_named(self, name: str) -> list[dict[str, Any]]:
        """The JSONL records on stderr with ``event`` = ``name``."""
        records = [json.loads(line) for line in self.stderr.splitlines() if line.startswith("{")]
        return [r for r in records if r.get("event") == name]

    def everything_written(self) -> str:
        """stdout, stderr and every file the run could have written (output dir, /tmp/gh-aw, stub log)."""
        texts = [self.stdout, self.stderr]
        for root in (self.step.gh_aw, self.step.workspace, self.step.runner_temp):
            for path in root.rglob("*"):
                if path.is_file():
                    texts.append(path.read_text(encoding="utf-8", errors="replace"))
        return "\n".join(texts)


@dataclass
class AgentStep:
    tmp: Path
    proxy: AwfProxy
    model: str
    squid_url: str
    prompt: str = "Triage the new issue and file a follow-up issue with safeoutputs."
    extra_env: dict[str, str] = field(default_factory=dict)
    no_proxy: str = "localhost,127.0.0.1,::1,172.30.0.30,api-proxy,host.docker.internal"
    token_steering: bool = True
    definition: dict[str, Any] = field(default_factory=frontmatter)

    def __post_init__(self) -> None:
        self.gh_aw = self.tmp / "gh-aw"
        self.runner_temp = self.tmp / "runner_temp"
        self.workspace = self.tmp / "workspace"
        # In the workspace: the real safeoutputs CLI talks to gh-aw's MCP server over loopback TCP and
        # writes nothing; the stub's own log must sit where an allow-list's sandbox (workspace-write)
        # lets any command write.
        self.stub_log = self.workspace / ".safeoutputs-calls.jsonl"
        for directory in (self.gh_aw / "aw-prompts", self.workspace, self.runner_temp / "gh-aw" / "mcp-cli" / "bin"):
            directory.mkdir(parents=True, exist_ok=True)
        (self.gh_aw / "aw-prompts" / "prompt.txt").write_text(self.prompt, encoding="utf-8")
        self.safe_outputs = self.runner_temp / "gh-aw" / "safeoutputs" / "outputs.jsonl"
        self.safe_outputs.parent.mkdir(parents=True)
        self.safe_outputs.write_text("")
        awf_config = {"apiProxy": {"enabled": True, "maxRuns": 500, "enableTokenSteering": self.token_steering}}
        (self.runner_temp / "gh-aw" / "awf-config.json").write_text(json.dumps(awf_config))
        stub = self.runner_temp / "gh-aw" / "mcp-cli" / "bin" / "safeoutputs"
        stub.write_text(STUB.format(python=sys.executable, log=str(self.stub_log)))
        stub.chmod(0o755)
        read_only = stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH
        self.safe_outputs.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        for directory in (self.safe_outputs.parent, stub.parent):
            directory.chmod(read_only)

    @property
    def execution(self) -> dict[str, Any]:
        execution: dict[str, Any] = self.definition["engine"]["behaviors"]["execution"]
        return execution

    @property
    def records(self) -> Path:
        """The harness's output dir: the definition's ``AW_OUTPUT_DIR``, under this step's /tmp/gh-aw."""
        return Path(self._in_tmp(self.execution["env"]["AW_OUTPUT_DIR"]))

    def _in_tmp(self, value: str) -> str:
        return value.replace("/tmp/gh-aw", str(self.gh_aw))

    def env(self) -> dict[str, str]:
        provider = self.model.split("/", 1)[0]
        env = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR", "SYSTEMROOT")}
        venv_bin = str(Path(sys.executable).parent)
        env["PATH"] = os.pathsep.join(
            [str(self.runner_temp / "gh-aw" / "mcp-cli" / "bin"), venv_bin, "/usr/bin", "/bin"]
        )
        env.update(
            {
                "GH_AW_PROMPT": str(self.gh_aw / "aw-prompts" / "prompt.txt"),
                "GITHUB_WORKSPACE": str(self.workspace),
                "RUNNER_TEMP": str(self.runner_temp),
                "GITHUB_RUN_ID": "424242",
                "GITHUB_RUN_ATTEMPT": "2",
                "GITHUB_REPOSITORY": "example-org/example-repo",
                "GH_AW_ENGINE_VERSION": str(self.definition["engine"]["version"]),
                "GH_AW_SAFE_OUTPUTS": str(self.safe_outputs),
                "GH_AW_MAX_AI_CREDITS": "1000",
                "GH_AW_MAX_TURNS": "",
                "TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                "GH_AW_LLM_PROVIDER": LLM_PROVIDER[provider],
                "AW_AGENT_START_FILE": str(self.gh_aw / "agent_cli_start_ms.txt"),
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update({k: self._in_tmp(str(v)) for k, v in self.execution.get("env", {}).items()})
        env[self.execution["model-env-var"]] = self.model
        env.update(self.awf_env())
        env.update(self.extra_env)
        return env

    def awf_env(self) -> dict[str, str]:
        """What AWF injects over the step env (credential isolation, proxy settings)."""
        env = {"HTTP_PROXY": self.squid_url, "HTTPS_PROXY": self.squid_url, "NO_PROXY": self.no_proxy}
        routes = self.proxy.routes
        if "anthropic" in routes:
            env.update(ANTHROPIC_BASE_URL=routes["anthropic"].url, ANTHROPIC_AUTH_TOKEN=PLACEHOLDERS["anthropic"])
        if "openai" in routes:
            key = PLACEHOLDERS["openai"]
            env.update(OPENAI_BASE_URL=routes["openai"].url, OPENAI_API_KEY=key, CODEX_API_KEY=key)
        if "copilot" in routes:
            url, token = routes["copilot"].url, PLACEHOLDERS["copilot"]
            env.update(COPILOT_API_URL=url, COPILOT_PROVIDER_BASE_URL=url, COPILOT_GITHUB_TOKEN=token)
            env.update(COPILOT_TOKEN=token, COPILOT_OFFLINE="true")
        return env

    def write_start_ms(self, epoch_ms: int) -> None:
        (self.gh_aw / "agent_cli_start_ms.txt").write_text(str(epoch_ms))

    def run(self, timeout: float = 120) -> StepRun:
        command = engine_command(self.definition, str(self.gh_aw / "aw-prompts" / "prompt.txt"))
        script = f'set -o pipefail\nexport no_proxy="${{NO_PROXY:-}}"\n{command}'
        proc = subprocess.run(
            ["bash", "-c", script],
            env=self.env(),
            cwd=self.workspace,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return StepRun(proc.returncode, proc.stdout, proc.stderr, self)

    def stub_calls(self) -> list[dict[str, Any]]:
        if not self.stub_log.exists():
            return []
        return [json.loads(line) for line in self.stub_log.read_text().splitlines()]
