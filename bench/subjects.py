"""How the bench starts each harness against the scripted server: aw-harness from this checkout,
Pi (``bench/pi``, installed by ``bench/install-pi.sh``) and the aw-harness image.

Each ``launch`` writes what the harness needs into a fresh folder (config, prompt, Pi's agent
folder with a ``models.json`` naming the server) and returns the argv and a minimal environment:
no credentials of the caller's, no network but the loopback server.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
PI_BIN = BENCH / "pi" / "node_modules" / ".bin" / "pi"
PI_PACKAGE = BENCH / "pi" / "node_modules" / "@mariozechner" / "pi-coding-agent" / "package.json"
PROMPT = "Run the commands you are asked for, then say done."
MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4o-mini"}
FAKE_KEY = "bench-key-not-a-secret"


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]
    cwd: Path


def _base_env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}


def _folders(root: Path) -> tuple[Path, Path]:
    home, workspace = root / "home", root / "workspace"
    home.mkdir(parents=True, exist_ok=True)
    workspace.mkdir(parents=True, exist_ok=True)
    return home, workspace


def scripted_run(work: Path, script: list[dict[str, object]], config: dict[str, object] | None = None) -> list[str]:
    """A CLI run on the scripted provider: its config (``config`` merged into the scripted model's),
    script and prompt written into ``work`` (its workspace ``work/ws``, made here); the argv."""
    (work / "ws").mkdir(parents=True, exist_ok=True)
    (work / "script.json").write_text(json.dumps(script))
    scripted = {"faux-script": str(work / "script.json")}
    merged: dict[str, object] = {"engine": {"model": "faux/scripted"}, "harness": scripted}
    for key, value in (config or {}).items():
        present = merged.get(key)
        merged[key] = {**present, **value} if isinstance(value, dict) and isinstance(present, dict) else value
    (work / "config.json").write_text(json.dumps(merged))
    (work / "prompt.txt").write_text("Do it.\n")
    config_path, prompt_path = str(work / "config.json"), str(work / "prompt.txt")
    return [sys.executable, "-m", "aw_action", "--config", config_path, "--prompt", prompt_path]


def aw_config(wire: str) -> dict[str, object]:
    return {
        "engine": {"id": "aw", "model": f"{wire}/{MODELS[wire]}"},
        "timeout-minutes": 30,
        "harness": {"budget": {"max-turns": 1000}},
    }


def _aw_env(wire: str, base_url: str) -> dict[str, str]:
    prefix = "ANTHROPIC" if wire == "anthropic" else "OPENAI"
    return {f"{prefix}_API_KEY": FAKE_KEY, f"{prefix}_BASE_URL": base_url}


def aw_harness(root: Path, wire: str, base_url: str) -> Launch:
    home, workspace = _folders(root)
    (root / "config.json").write_text(json.dumps(aw_config(wire)))
    (root / "prompt.txt").write_text(PROMPT + "\n")
    env = {
        **_base_env(home),
        **_aw_env(wire, base_url),
        "AW_OUTPUT_DIR": str(root / "out"),
        "GITHUB_WORKSPACE": str(workspace),
    }
    config, prompt = str(root / "config.json"), str(root / "prompt.txt")
    argv = [sys.executable, "-m", "aw_action", "--config", config, "--prompt", prompt]
    return Launch(argv, env, workspace)


_FLOOR = {
    "anthropic": "import anthropic\n"
    "anthropic.Anthropic(max_retries=0).messages.create(model='{model}', max_tokens=64, "
    "messages=[{{'role': 'user', 'content': 'hi'}}])",
    "openai": "import openai\n"
    "openai.OpenAI(max_retries=0).chat.completions.create(model='{model}', "
    "messages=[{{'role': 'user', 'content': 'hi'}}])",
}


def sdk_floor(root: Path, wire: str, base_url: str) -> Launch:
    """The least a Python harness on this SDK does before its first request: import the SDK, make
    a client, send one message."""
    home, workspace = _folders(root)
    env = {**_base_env(home), **_aw_env(wire, base_url)}
    return Launch([sys.executable, "-c", _FLOOR[wire].format(model=MODELS[wire])], env, workspace)


def pi_version() -> str:
    return str(json.loads(PI_PACKAGE.read_text())["version"]) if PI_PACKAGE.is_file() else "not installed"


def pi(root: Path, wire: str, base_url: str) -> Launch:
    home, workspace = _folders(root)
    agent = root / "pi-agent"
    agent.mkdir(exist_ok=True)
    provider = {
        "baseUrl": base_url,
        "api": "anthropic-messages" if wire == "anthropic" else "openai-completions",
        "apiKey": FAKE_KEY,
        "models": [{"id": MODELS[wire], "contextWindow": 200000, "maxTokens": 16384}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"bench": provider}}))
    env = {**_base_env(home), "PI_CODING_AGENT_DIR": str(agent), "PI_OFFLINE": "1"}
    argv = [str(PI_BIN), "-p", "--offline", "--provider", "bench", "--model", MODELS[wire], PROMPT]
    return Launch(argv, env, workspace)


def image(root: Path, wire: str, base_url: str, tag: str) -> Launch:
    """The image as the runner starts it (action entrypoint, inputs as INPUT_*), host network so
    the container reaches the loopback server."""
    home, workspace = _folders(root)
    (workspace / "fc").mkdir(exist_ok=True)
    (workspace / "fc" / "output").write_text("")
    inputs = {
        "INPUT_MODEL": f"{wire}/{MODELS[wire]}",
        "INPUT_PROMPT": PROMPT,
        "INPUT_MAX-TURNS": "1000",
        "INPUT_UPLOAD-ARTIFACTS": "false",
        f"INPUT_{'ANTHROPIC' if wire == 'anthropic' else 'OPENAI'}-API-KEY": FAKE_KEY,
    }
    env = {
        **inputs,
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_OUTPUT": "/github/workspace/fc/output",
        f"{'ANTHROPIC' if wire == 'anthropic' else 'OPENAI'}_BASE_URL": base_url,
    }
    argv = ["docker", "run", "--rm", "--network", "host", "--workdir", "/github/workspace"]
    argv += ["-v", f"{workspace}:/github/workspace"]
    for key, value in env.items():
        argv += ["-e", f"{key}={value}"]
    return Launch([*argv, tag], _base_env(home), workspace)
