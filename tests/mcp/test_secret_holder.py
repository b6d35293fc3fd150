"""A stdio server given secrets runs as a user other than the tools' when the harness (root)
switches users: the agent's shell cannot read them in the server's /proc environ, while the
server has them. Root only (the tests skip otherwise, saying why)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from aw_action.security.confinement.identity import SECRET_HOLDER_UID, ToolIdentity
from tests.conftest import base_env, run_cli, write_run_files

RAW = Path(__file__).with_name("raw_server.py")
SECRET = "docs-secret-value-98765"
SCAN = "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null; done | grep -c '^DOCS_TOKEN=' || true"


def test_a_server_given_secrets_runs_as_another_user_the_agent_cannot_read(
    tmp_path: Path, user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity
) -> None:
    server = shared_tmp / "raw_server.py"
    shutil.copy(RAW, server)
    os.chmod(server, 0o644)
    turns = [
        {"tool_calls": [{"name": "mcp__docs__getenv", "arguments": {"name": "DOCS_TOKEN"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": SCAN}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "id -u"}}]},
        {"text": "done"},
    ]
    servers = {"docs": {"command": "/usr/bin/python3", "args": [str(server)], "env-vars": ["DOCS_TOKEN"]}}
    cfg, prompt = write_run_files(
        tmp_path, {"engine": {"model": "faux/scripted"}, "mcp-servers": servers}, script=turns
    )
    env = base_env(tmp_path, DOCS_TOKEN=SECRET, GITHUB_WORKSPACE=str(user_dir), AW_OUTPUT_DIR=str(shared_tmp / "out"))
    run = run_cli(["--config", str(cfg), "--prompt", str(prompt)], env, cwd=user_dir, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    entries = [json.loads(line) for line in (shared_tmp / "out" / "session.jsonl").read_text().splitlines()]
    results = [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "toolResult"]
    texts = ["".join(b.get("text", "") for b in r["content"]) for r in results]
    assert f"uid={SECRET_HOLDER_UID}" in texts[0] and "(unset)" not in texts[0], texts[0]
    assert SECRET not in texts[0], "redacted in what the model and the records see"
    assert texts[2].strip().endswith(str(tool_user.uid)), "control: the agent's shell is the tools' user"
    assert texts[1].strip().splitlines()[-1] == "0", "the agent's shell read the server's environment"
    assert "the agent can read the variables" not in run.stderr
