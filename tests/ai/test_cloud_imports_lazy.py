"""The clouds' SDK extras are ordinary dependencies, but a run on another provider never imports
them (issue 21: an anthropic run starts no slower for them). A real CLI run against the local
Anthropic server under ``python -X importtime``, whose stderr lists every module imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import base_env, write_run_files
from tests.servers import anthropic as wire
from tests.servers.wire import WireServer

CLOUD_PACKAGES = ("boto3", "botocore", "google.auth", "google.oauth2", "azure.", "msal")


def imported_modules(stderr: str) -> set[str]:
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_an_anthropic_run_imports_no_cloud_sdk(tmp_path: Path) -> None:
    cfg, prompt = write_run_files(tmp_path, {"engine": {"id": "aw", "model": "claude-sonnet-4.6"}}, "Say hi.")
    with WireServer() as server:
        server.script(wire.stream_reply(text="Hi.", use=wire.usage(10, 2)))
        env = base_env(tmp_path, ANTHROPIC_API_KEY="sk-ant-lazy-imports-0000", ANTHROPIC_BASE_URL=server.url)
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "aw_action", "--config", str(cfg), "--prompt", str(prompt)],
            env=env,
            cwd=env["GITHUB_WORKSPACE"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    modules = imported_modules(proc.stderr)
    assert any(m.startswith("anthropic.") for m in modules), "the run imported its own SDK (the listing works)"
    assert sorted(m for m in modules if m.startswith(CLOUD_PACKAGES)) == []
