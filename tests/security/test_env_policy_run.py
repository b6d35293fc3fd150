"""Issue 29, item 5: the tools' environment is an allow-list, in a real run (the CLI as root, the
tools as an unprivileged user, the model served through the anthropic SDK by a local server).

The runner's leaky variables (a ``ghp_`` token under an innocent name, npm's auth, an admin key,
a database URL with its password, a Slack webhook) and the harness's own (``PYTHONSAFEPATH``,
``PYTHONDONTWRITEBYTECODE``, ``AW_*``, ``INPUT_*``) never reach the agent's shell nor
``session.jsonl``; a toolchain variable and a variable the config grants do; a repository's
``python3 test_app.py`` imports its neighbour ``app.py`` (issue 32 found ``PYTHONSAFEPATH``
leaking); the summary's access note names the grant.
"""

from __future__ import annotations

import os
from pathlib import Path

from aw_action.security.confinement.identity import ToolIdentity
from tests.conftest import base_env, run_cli, session_tool_texts, write_run_files
from tests.security.attacks import script
from tests.servers.wire import WireServer

LEAKY = {
    "GH_PAT": "ghp_" + "Pl4nted0Gh" * 4,
    "NPM_CONFIG__AUTH": "cGxhbnRlZC1ucG0tYXV0aC12YWx1ZQ==",
    "OPENAI_ADMIN_KEY": "sk-admin-Pl4ntedAdminKey0123456789",
    "DATABASE_URL": "postgres://app:Pl4nted-db-pw@db.internal:5432/app",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0PLANT/B0PLANT/Pl4ntedSlackHook0123",
}
HARNESS_OWN = {"PYTHONSAFEPATH": "1", "PYTHONDONTWRITEBYTECODE": "1", "INPUT_MODEL": "faux-planted"}
VALUES = ["Pl4nted", "cGxhbnRlZC1ucG0tYXV0aC12YWx1ZQ", "hooks.slack.com/services"]


def test_the_agents_shell_gets_the_allow_list_and_the_grant_and_nothing_leaks(
    tmp_path: Path, user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity
) -> None:
    (user_dir / "app.py").write_text("def answer():\n    return 42\n")
    (user_dir / "test_app.py").write_text("import app\nprint('app says', app.answer())\n")
    for name in ("app.py", "test_app.py"):
        os.chown(user_dir / name, tool_user.uid, tool_user.gid)
    out = shared_tmp / "out"
    calls = [("bash", {"command": "env | sort"}), ("bash", {"command": "python3 test_app.py"})]
    with WireServer() as server:
        server.script(*script(calls))
        env = base_env(
            tmp_path,
            **LEAKY,
            **HARNESS_OWN,
            ANTHROPIC_API_KEY="sk-ant-api03-Pl4ntedAnthropicKey0123456789",
            ANTHROPIC_BASE_URL=server.url,
            JAVA_HOME_17_X64="/opt/java/17",
            MY_FLAG="granted-value",
            NOT_GRANTED="stays-out",
            GITHUB_WORKSPACE=str(user_dir),
            GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
            AW_OUTPUT_DIR=str(out),
            PATH="/usr/bin:/bin",
        )
        (tmp_path / "summary.md").write_text("")
        config = {"engine": {"id": "aw", "model": "claude-sonnet-4.6"}, "tools": {"pass-env": ["MY_FLAG"]}}
        cfg, prompt = write_run_files(tmp_path, config)
        run = run_cli(["--config", str(cfg), "--prompt", str(prompt)], env, cwd=user_dir, timeout=300)
    assert run.returncode == 0, run.stderr
    shown, imported = session_tool_texts(out / "session.jsonl")
    names = {line.split("=", 1)[0] for line in shown.splitlines() if "=" in line}
    assert {"PATH", "HOME", "JAVA_HOME_17_X64", "MY_FLAG"} <= names
    assert not names & {*LEAKY, *HARNESS_OWN, "NOT_GRANTED", "ANTHROPIC_API_KEY"}
    own = [n for n in names if n.startswith(("AW_", "INPUT_", "ACTIONS_", "PYTHON"))]
    assert set(own) <= {"AW_OUTPUT_DIR", "AW_AGENT_PROCESS"}, own  # what the harness gives the tools on purpose
    assert "MY_FLAG=granted-value" in shown
    assert "app says 42" in imported, imported
    everything = run.stdout + run.stderr + (tmp_path / "summary.md").read_text()
    everything += "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    for value in VALUES:
        assert value not in everything, value
    assert "Environment granted to the tools by the config: MY_FLAG." in (tmp_path / "summary.md").read_text()


def test_a_grant_of_the_harnesss_own_variable_is_refused_naming_the_field(tmp_path: Path) -> None:
    config = {"engine": {"id": "aw", "model": "claude-sonnet-4.6"}, "tools": {"pass-env": ["PYTHONSAFEPATH"]}}
    cfg, prompt = write_run_files(tmp_path, config)
    run = run_cli(["--config", str(cfg), "--prompt", str(prompt)], base_env(tmp_path), cwd=tmp_path, timeout=60)
    assert run.returncode == 2
    assert "pass-env" in run.stderr and "PYTHONSAFEPATH" in run.stderr
