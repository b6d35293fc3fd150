"""What non-dumpable and the environ wipe really do, measured on this kernel (Linux only).

Each case runs a fresh "harness" process holding a planted secret in its environment, so the
test process itself is never changed. The facts pinned here are the ones docs/security.md
relies on: non-dumpable stops same-uid readers but not root; deleting from os.environ does not
change /proc/<pid>/environ; the wipe does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aw_action.security.confinement.fileio import helper_python
from aw_action.security.confinement.identity import ToolIdentity

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux")

REPO = Path(__file__).resolve().parents[2]
SECRET = "sk-planted-" + "q7Zx" * 8

# The stand-in harness: optionally hardens itself, then lets a "tool" (a child, possibly as
# another user) try to read its /proc entries, and reports what the tool saw.
HARNESS = r"""
import json, os, subprocess, sys
from aw_action.security.confinement import process_guard as guard
mode, user = sys.argv[1], sys.argv[2]
planted = os.environ["PLANTED"].encode()
report = {}
if "nondump" in mode:
    report["guard"] = guard.make_non_dumpable().applied
if "popenv" in mode:
    os.environ.pop("PLANTED", None)
if "wipe" in mode:
    report["wipe"] = guard.wipe_initial_environ(["PLANTED"]).detail
    report["os_environ_kept"] = os.environ.get("PLANTED", "")
kw = {} if user in ("-", str(os.getuid())) else {"user": int(user), "extra_groups": []}
pid = os.getpid()
for name in ("environ", "mem", "cmdline"):
    cmd = ["dd", f"if=/proc/{pid}/{name}", "bs=4096", "count=64", "status=none"]
    r = subprocess.run(cmd, capture_output=True, env={"PATH": "/usr/bin:/bin"}, **kw)
    report[name] = {"rc": r.returncode, "leak": planted in r.stdout}
r = subprocess.run(["sh", "-c", "printf %s \"$PLANTED\""], capture_output=True)
report["child_env_none"] = r.stdout.decode()
print(json.dumps(report))
"""


def _harness(mode: str, *, tool_uid: int | None = None, run_as: ToolIdentity | None = None) -> dict[str, object]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "PLANTED": SECRET}
    kwargs = run_as.popen_kwargs() if run_as else {}
    proc = subprocess.run(
        [helper_python(), "-c", HARNESS, mode, "-" if tool_uid is None else str(tool_uid)],
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        timeout=60,
        **kwargs,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def test_root_reads_a_non_dumpable_process_environ(tool_user: ToolIdentity) -> None:
    """Why tools must run as another user when the harness is root: CAP_SYS_PTRACE wins."""
    seen = _harness("nondump")
    assert seen["guard"] is True
    assert seen["environ"] == {"rc": 0, "leak": True}


def test_another_uid_reads_neither_environ_nor_mem_of_the_root_harness(tool_user: ToolIdentity) -> None:
    seen = _harness("nondump", tool_uid=tool_user.uid)
    assert seen["environ"] == {"rc": 1, "leak": False}
    assert seen["mem"] == {"rc": 1, "leak": False}
    assert seen["cmdline"] == {"rc": 0, "leak": False}, "cmdline is world-readable: it must never hold a secret"


def test_non_dumpable_stops_a_same_uid_tool(tool_user: ToolIdentity) -> None:
    """The CLI case (harness and tools share a non-root uid): only the flag protects /proc."""
    plain = _harness("plain", tool_uid=tool_user.uid, run_as=tool_user)
    assert plain["environ"] == {"rc": 0, "leak": True}, "without the flag a same-uid tool reads the keys"
    hardened = _harness("nondump", tool_uid=tool_user.uid, run_as=tool_user)
    assert hardened["guard"] is True
    assert hardened["environ"] == {"rc": 1, "leak": False}
    assert hardened["mem"] == {"rc": 1, "leak": False}


def test_deleting_from_os_environ_leaves_proc_environ_unchanged() -> None:
    seen = _harness("popenv")
    assert seen["environ"] == {"rc": 0, "leak": True}, "/proc/<pid>/environ is the initial block"
    assert seen["child_env_none"] == "", "children started with env=None no longer get it"


def test_wiping_the_initial_block_clears_proc_environ_and_keeps_os_environ() -> None:
    seen = _harness("wipe")
    assert seen["wipe"] == "wiped from the initial environment: PLANTED"
    assert seen["environ"] == {"rc": 0, "leak": False}
    assert seen["os_environ_kept"] == SECRET, "Python's own copy, which the SDKs read, is intact"
    assert seen["child_env_none"] == "", "a child started with env=None inherits the wiped C environ"
