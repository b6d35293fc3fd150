"""stdout carries only the result: prints, raw fd writes and children's output become redacted
diagnostics on stderr. Runs in a child process, since it rewires file descriptor 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SECRET = "sk-ant-api03-StdoutPlanted0123456789"

SCRIPT = r"""
import json, os, subprocess, sys
from aw_action.run.redact import Redactor
from aw_action.security.confinement.stdout_guard import reserved_stdout
secret = os.environ["PLANTED"]
redactor = Redactor([secret])
with reserved_stdout(redactor.text) as result:
    print("extension says", secret)
    sys.stdout.write("partial " + secret[:10])
    sys.stdout.write(secret[10:] + " done\n")
    os.write(1, ("raw fd write " + secret + "\n").encode())
    subprocess.run(["sh", "-c", 'echo "child process $PLANTED"'], check=True)
    sys.stdout.write("no newline at the end " + secret)
    result.write(json.dumps({"conclusion": "success"}) + "\n")
print("after the run, stdout is stdout again")
"""


def test_only_the_result_reaches_stdout_and_the_rest_is_redacted_on_stderr() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "PLANTED": SECRET},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [json.dumps({"conclusion": "success"}), "after the run, stdout is stdout again"]
    assert SECRET not in proc.stderr and SECRET[:12] not in proc.stderr
    diagnostics = sorted(line for line in proc.stderr.splitlines() if line.startswith("aw-harness: stdout: "))
    assert diagnostics == sorted(
        f"aw-harness: stdout: {text}"
        for text in (
            "extension says ***",
            "partial *** done",
            "raw fd write ***",
            "child process ***",
            "no newline at the end ***",
        )
    )
