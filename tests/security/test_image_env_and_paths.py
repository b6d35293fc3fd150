"""Issue 29, items 5 and 6 on the real image, run the way the runner runs it (workspace owned by
uid 1001, the step's ``env:`` passed with ``-e``): the agent's shell gets the allow-list (a
toolchain variable and a granted one, none of the runner's leaky variables nor the image's
``PYTHONSAFEPATH``: a repository's ``python3 test_app.py`` imports its neighbour ``app.py``),
and the credentials file google-github-actions/auth exported as the runner host's path is mapped
to ``/github/workspace/...`` and withheld from the tools; no planted value reaches the log or a
record."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.container import engine
from tests.container.runner import RunnerHost, run_container

RUNNER_UID = 1001
CREDS = "gha-creds-0123456789abcdef.json"
LEAKY = {
    "GH_PAT": "ghp_" + "Pl4nted0Gh" * 4,
    "NPM_CONFIG__AUTH": "cGxhbnRlZC1ucG0tYXV0aC12YWx1ZQ==",
    "OPENAI_ADMIN_KEY": "sk-admin-Pl4ntedAdminKey0123456789",
    "DATABASE_URL": "postgres://app:Pl4nted-db-pw@db.internal:5432/app",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0PLANT/B0PLANT/Pl4ntedSlackHook0123",
}
OIDC = "Pl4ntedOidcRequestToken0123456789"
PROBES = ["env | sort", "python3 test_app.py", f"cat {CREDS}; echo rc=$?"]


@pytest.fixture(scope="module")
def image() -> str:
    return engine.image()


def test_the_agents_environment_and_a_runner_host_credentials_path_on_the_image(image: str, tmp_path: Path) -> None:
    host = RunnerHost.under(tmp_path, examples=False)
    ws = host.workspace
    (ws / "app.py").write_text("def answer():\n    return 42\n")
    (ws / "test_app.py").write_text("import app\nprint('app says', app.answer())\n")
    creds = {"type": "external_account", "credential_source": {"headers": {"Authorization": f"Bearer {OIDC}"}}}
    (ws / CREDS).write_text(json.dumps(creds))
    (ws / CREDS).chmod(0o640)
    for path in (ws, host.temp / "_github_home", *ws.iterdir()):
        os.chown(path, RUNNER_UID, RUNNER_UID)
    turns: list[dict[str, object]] = [
        {"text": "probing", "tool_calls": [{"name": "bash", "arguments": {"command": cmd}}]} for cmd in PROBES
    ]
    turns.append({"text": "done"})
    (host.temp / "script.json").write_text(json.dumps({"turns": turns}))
    inputs = {"prompt": "Probe.", "model": "faux/scripted", "upload-artifacts": "false", "pass-env": "MY_FLAG"}
    env = {
        **LEAKY,
        "AW_FAUX_SCRIPT": "/github/runner_temp/script.json",
        "GOOGLE_APPLICATION_CREDENTIALS": str(ws / CREDS),  # the host's path, as the auth action exports it
        "JAVA_HOME_17_X64": "/opt/hostedtoolcache/jdk/17",
        "MY_FLAG": "granted-value",
    }
    run = run_container(image, host, inputs, env)
    assert run.returncode == 0, run.log[-4000:]
    session = host.host_path(run.outputs["session-file"])
    results = []
    for line in session.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "message" and entry["message"]["role"] == "toolResult":
            results.append("".join(part.get("text", "") for part in entry["message"]["content"]))
    shown, imported, cat = results
    names = {line.split("=", 1)[0] for line in shown.splitlines() if "=" in line}
    assert {"PATH", "HOME", "JAVA_HOME_17_X64", "MY_FLAG", "GITHUB_REPOSITORY"} <= names, names
    assert not names & {*LEAKY, "PYTHONSAFEPATH", "PYTHONDONTWRITEBYTECODE", "GOOGLE_APPLICATION_CREDENTIALS"}
    assert not [n for n in names if n.startswith(("INPUT_", "ACTIONS_"))]
    assert "app says 42" in imported, imported
    assert "Permission denied" in cat and "rc=1" in cat and OIDC not in cat, cat
    everything = run.log + run.summary + "".join(p.read_text(errors="replace") for p in session.parent.rglob("*.jsonl"))
    for value in [*LEAKY.values(), OIDC, "Pl4nted-db-pw"]:
        assert value not in everything, value
    assert "Environment granted to the tools by the config: MY_FLAG." in run.summary
    assert oct((ws / CREDS).stat().st_mode)[-3:] == "640" and (ws / CREDS).stat().st_uid == RUNNER_UID, "given back"
