"""A stop signal that comes while the process is still importing the harness is held, and the run
it would have cut short ends as a cancelled run: one result object, exit 1, records written
(``run/stop_hold.py``, ``launch.py``). Without the hold, SIGTERM's default action ended the
process with no result and no records.

The signal is sent by the process to itself right after the hold is installed and before
``aw_action.cli`` is imported, so the moment is exact, not raced.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import base_env, write_run_files

EARLY_SIGNAL = """
import os, signal, sys
from aw_action.run.stop_hold import hold
hold()
os.kill(os.getpid(), signal.SIG{name})
assert "aw_action.cli" not in sys.modules
from aw_action.launch import entrypoint
sys.argv = ["aw-harness", "--config", sys.argv[1], "--prompt", sys.argv[2]]
entrypoint()
"""


def run_with_early(signal_name: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    config, prompt = write_run_files(
        tmp_path, {"engine": {"model": "faux/scripted"}}, "Do it.", [{"text": "should never be asked"}]
    )
    env = base_env(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", EARLY_SIGNAL.format(name=signal_name), str(config), str(prompt)],
        env=env,
        cwd=env["GITHUB_WORKSPACE"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    return proc, json.loads(lines[0])


def test_a_sigterm_while_importing_ends_the_run_cancelled_with_its_records(tmp_path: Path) -> None:
    proc, result = run_with_early("TERM", tmp_path)
    assert proc.returncode == 1 and result["stop_reason"] == "cancelled", result
    assert (tmp_path / "out" / "session.jsonl").is_file()
    assert "should never be asked" not in (tmp_path / "out" / "session.jsonl").read_text()


def test_a_sigint_while_importing_is_held_too(tmp_path: Path) -> None:
    proc, result = run_with_early("INT", tmp_path)
    assert proc.returncode == 1 and result["stop_reason"] == "cancelled", result


def test_a_subcommand_without_the_stop_scheme_ends_on_a_held_signal_as_by_default(tmp_path: Path) -> None:
    code = (
        "import os, signal, sys\n"
        "from aw_action.run.stop_hold import hold\n"
        "hold()\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "from aw_action.launch import entrypoint\n"
        f"sys.argv = ['aw-harness', 'audit', {str(tmp_path)!r}]\n"
        "entrypoint()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -15 and proc.stdout == "", (proc.returncode, proc.stderr[-2000:])
