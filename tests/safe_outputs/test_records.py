"""The records file survives writers that die: every complete line stays a record."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from aw_action.safe_outputs.records import RECORDS_FILE, RecordLog, read_records

REPO = Path(__file__).resolve().parents[2]
WRITER = """
import sys
from pathlib import Path
from aw_action.safe_outputs.records import RecordLog
log = RecordLog(Path(sys.argv[1]))
i = 0
while True:
    with log.locked():
        log.append({"type": "noop", "message": "x" * 5000 + str(i)})
    i += 1
"""


def test_a_torn_last_line_stays_one_bad_line_and_the_next_record_is_whole(tmp_path: Path) -> None:
    log = RecordLog(tmp_path)
    with log.locked():
        log.append({"type": "noop", "message": "first"})
    with open(log.path, "ab") as handle:
        handle.write(b'{"type":"create_issue","title":"cut off by a ki')  # writer killed mid-line
    with log.locked():
        log.append({"type": "noop", "message": "after"})
    lines = read_records(log.path)
    first, after = {"type": "noop", "message": "first"}, {"type": "noop", "message": "after"}
    assert [line.record for line in lines] == [first, None, after]
    assert lines[1].error == "line 2: not valid JSON (JSONDecodeError)"
    assert log.count("create_issue") == 0


def test_a_number_no_float_holds_is_a_bad_line_not_infinity(tmp_path: Path) -> None:
    """``1e400`` is JSON text but no float: read as infinity it would reach the apply job's
    payloads, which JSON cannot carry."""
    log = RecordLog(tmp_path)
    with open(log.path, "ab") as handle:
        handle.write(b'{"type":"noop","message":"x","weight":1e400}\n')
    [line] = read_records(log.path)
    assert line.record is None and line.error == "line 1: not valid JSON (ValueError)"


def test_a_writer_killed_mid_stream_leaves_only_whole_records(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], env=env)
    path = tmp_path / RECORDS_FILE
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not path.exists() or path.stat().st_size < 200_000):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    lines = read_records(path)
    assert len(lines) >= 10
    assert all(line.record is not None for line in lines[:-1])  # only the very last can be torn
    log = RecordLog(tmp_path)
    with log.locked():
        log.append({"type": "noop", "message": "after the crash"})
    assert read_records(path)[-1].record == {"type": "noop", "message": "after the crash"}
