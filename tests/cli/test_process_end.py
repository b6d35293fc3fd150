"""The process ends with ``os._exit`` once a run is over (``launch.end_process``), skipping the
interpreter's teardown of its modules, but only after what an interpreter's exit promises, in its
order: non-daemon threads joined, then ``atexit`` handlers, then stdout and stderr flushed, with
the run's exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import base_env, run_cli, write_run_files

EXTENSION = """
import atexit, sys, threading, time
from pathlib import Path

LOG = Path({log!r})

def _late_thread():
    time.sleep(0.3)
    with LOG.open("a") as f:
        f.write("thread\\n")

def _at_exit():
    with LOG.open("a") as f:
        f.write("atexit\\n")
    sys.stderr.write("unflushed-at-exit")  # no newline: only a flush brings it out

def setup(api):
    atexit.register(_at_exit)
    threading.Thread(target=_late_thread, daemon=False).start()
"""


@pytest.mark.parametrize(
    ("script", "code"),
    [([{"text": "done"}], 0), ([{"error": {"status": 400, "message": "bad request"}}], 1)],
)
def test_threads_then_exit_handlers_then_flushed_streams_then_the_runs_exit_code(
    tmp_path: Path, script: list[dict[str, object]], code: int
) -> None:
    log = tmp_path / "order.log"
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "late_ext.py").write_text(EXTENSION.format(log=str(log)))
    config = {"engine": {"model": "faux/scripted"}, "harness": {"extensions": ["./late_ext.py"]}}
    c, p = write_run_files(tmp_path, config, script=script)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == code, run.stderr
    assert log.read_text().splitlines() == ["thread", "atexit"]
    assert run.stderr.endswith("unflushed-at-exit")
    assert json.loads(run.stdout)["exit_code"] == code
    # the records a run leaves are whole when the process is gone
    for line in (run.output_dir / "session.jsonl").read_text().splitlines():
        json.loads(line)
