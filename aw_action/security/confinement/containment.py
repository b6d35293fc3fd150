"""Every process started on the agent's behalf ends at once at the run's end, and their number is
bounded (docs/security.md, "Processes that outlive a call").

Ending them: scanning ``/proc`` and killing by pid loses to a fork chain (fork, exit, repeat: the
pid killed is always the one that already forked). ``kill(-1, SIGKILL)`` does not: the kernel
signals every process the sender may signal under one lock, and a fork in progress is aborted.
Sent by a process of the tools' user, it reaches exactly that user's processes. So when the
tools run as their own uid (the harness is root: the container action, the CLI as root),
``end_agent_processes`` starts ``KILLER`` as that user; it first checks that every process of the
uid in the PID namespace descends from the harness (the child subreaper: whatever the agent
started, however it detached), and refuses (exit 3, naming the stranger) when one does not, as
the kill would reach it too. Neither a PID namespace nor a writable cgroup can be had in the
container the runner starts (no ``CAP_SYS_ADMIN``, a read-only cgroup mount), which is why this is
the mechanism. Where it cannot be used (the tools run as the harness's own user, or a stranger
shares their uid: from the start, and ``plan`` does not plan it, as on the runner itself where the
tools' uid is the runner's; or from later on, and the helper refuses), the end is the ``/proc``
scan (``tools/processes.py``) and the run's records and summary say containment is best effort.

Bounding them: ``plan`` sets ``Containment.limit``, ``RLIMIT_NPROC`` for the tools' commands (the exec wrapper
sets it: ``landlock.py``, ``nproc=``): the tasks (threads included) the uid has when the run
starts plus the configured budget (``harness.process-budget``). A fork past it fails with EAGAIN
in the agent's command; the harness is another user and keeps its own. The kernel does not hold
root to it: tools that run as root have no bound, which the run says.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Literal

from aw_action.lazy_dataclass import dataclass
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.spawn import SERVER_ENV, Launch, helper_python, run

Method = Literal["kill-uid", "best-effort"]
KILLER_TIMEOUT_S = 5.0
EXIT_STRANGER = 3
KILLER = r"""
import os, signal, sys, time
me, root, uid = os.getpid(), int(sys.argv[1]), os.getuid()
def table():
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/status" % name, "rb") as fh:
                lines = dict(l.split(b":", 1) for l in fh.read().splitlines() if b":" in l)
            uids = lines[b"Uid"].split()
            out[int(name)] = (int(lines[b"PPid"]), int(uids[0]) == uid or int(uids[2]) == uid)
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return out
def strangers():
    found, procs = set(), table()
    for pid, (ppid, mine) in procs.items():
        if not mine or pid == me:
            continue
        seen = set()
        while ppid not in (root, 0, 1) and ppid in procs and ppid not in seen:
            seen.add(ppid)
            ppid = procs[ppid][0]
        if ppid != root:
            found.add(pid)
    return found
lasting = strangers()
for _ in range(2):
    if not lasting:
        break
    time.sleep(0.01)
    lasting &= strangers()
if lasting:
    sys.stdout.write(" ".join(map(str, sorted(lasting))))
    sys.exit(3)
for _ in range(3):
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        break
    time.sleep(0.005)
"""
"""Standard library only, run as ``python -I -S -c KILLER <harness pid>`` as the tools' user. A
process counts as the harness's when its parent chain reaches the harness; one seen as a stranger
in three scans 10 ms apart is one (a fork chain's link between two scans is not)."""


@dataclass(frozen=True)
class Containment:
    """How this run's agent processes end, and how many there may be."""

    method: Method
    uid: int | None
    limit: int = 0
    """``RLIMIT_NPROC`` of the tools' commands (0: none)."""
    budget: int = 0
    reason: str = ""

    def describe(self, cause: bool = True) -> str:
        """The summary's line; ``cause`` False leaves out why it is best effort, for a summary
        that already says the tools run as root (one fact said once)."""
        why = f" ({self.reason})" if cause else ""
        if self.method == "kill-uid":
            end = f"all ended at once at the run's end (kill(-1) as uid {self.uid})"
        else:
            end = f"ended at the run's end by a /proc scan, best effort{why}"
        bound = (
            f"at most {self.budget} more tasks than uid {self.uid} had at the start (RLIMIT_NPROC {self.limit})"
            if self.limit
            else "no process bound" + (" (the tools run as root)" if cause else "")
        )
        return f"Processes: {end}; {bound}."


@dataclass(frozen=True)
class Ending:
    """What the end found: the method that ran, why not the atomic one, what would not die."""

    method: Method
    note: str
    left: tuple[str, ...]
    """``pid (comm)`` of each process of the tools' uid still alive after the kill."""


@dataclass(frozen=True)
class Task:
    pid: int
    ppid: int
    state: str
    threads: int
    name: str


def uid_tasks(uid: int) -> list[Task]:
    """The processes whose real uid is ``uid`` (zombies included), from ``/proc``."""
    found: list[Task] = []
    for entry in _proc_entries():
        try:
            fields = dict(line.split(":", 1) for line in (entry / "status").read_text().splitlines() if ":" in line)
            if int(fields["Uid"].split()[0]) != uid:
                continue
            state = fields["State"].split()[0]
            found.append(
                Task(int(entry.name), int(fields["PPid"]), state, int(fields["Threads"]), fields["Name"].strip())
            )
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return found


def _proc_entries() -> list[Path]:
    try:
        return [p for p in Path("/proc").iterdir() if p.name.isdigit()]
    except OSError:
        return []


def plan(identity: ToolIdentity | None, budget: int) -> Containment:
    """The run's containment (the module docstring), decided before any tool runs. ``kill(-1)`` is
    planned only for a uid of the tools' own: not the harness's, not root's, and running no process
    that does not descend from the harness. On the runner itself (the runner-side action,
    docs/toolchain.md) the runner's own uid runs the runner and the step that started the harness:
    such a uid never gets ``kill(-1)``, whoever the harness is."""
    euid = os.geteuid()
    uid = identity.uid if identity is not None else euid
    tasks = [t for t in uid_tasks(uid) if t.state != "Z"]
    limit = sum(t.threads for t in tasks) + budget if uid != 0 else 0
    if identity is not None and identity.uid not in (euid, 0):
        strangers = not_descendants([t.pid for t in tasks])
        if not strangers:
            return Containment("kill-uid", uid, limit, budget)
        pids = " ".join(map(str, strangers[:5]))
        why = f"uid {uid} has processes this run did not start (pid {pids}): not a uid of the tools' own"
        return Containment("best-effort", uid, limit, budget, why)
    why = "the tools run as the harness's own user" if uid != 0 else "the tools run as root"
    return Containment("best-effort", uid, limit, budget, why)


def end_agent_processes(containment: Containment, identity: ToolIdentity | None) -> Ending:
    """Kill every process of the tools' uid at once when the plan allows it; never raises. The
    caller then runs the ``/proc`` scan (harness-uid descendants, zombies) and ``left_behind``."""
    if containment.method != "kill-uid" or identity is None:
        return Ending("best-effort", containment.reason, ())
    launch = Launch(SERVER_ENV, "/", identity)
    try:
        done = run([helper_python(), "-I", "-S", "-c", KILLER, str(os.getpid())], launch, timeout_s=KILLER_TIMEOUT_S)
    except OSError as exc:  # out of PIDs: the scan is all that is left
        return Ending("best-effort", f"the kill helper could not start: {exc.strerror or exc}", ())
    if done.returncode == EXIT_STRANGER:
        pids = done.stdout.decode(errors="replace").strip()
        return Ending("best-effort", f"uid {identity.uid} has processes this run did not start (pid {pids})", ())
    if done.returncode != 0 or done.timed_out:
        detail = done.stderr.decode(errors="replace").strip()[-200:] or f"exit {done.returncode}"
        return Ending("best-effort", f"the kill helper failed: {detail}", ())
    return Ending("kill-uid", "", ())


def end_holder_processes(holder: ToolIdentity | None) -> Ending | None:
    """The same end for the processes of the secret holder (``identity.secret_holder``: the uid an
    MCP server given variables runs as, not the tools'): ``kill(-1)`` as that uid when it runs a
    process descending from the harness and none that does not (the helper checks, as for the
    tools); ``None`` when it runs none of the harness's. The caller's ``/proc`` scan follows."""
    if holder is None or not left_behind(holder.uid):
        return None
    return end_agent_processes(Containment("kill-uid", holder.uid), holder)


def _parents() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in _proc_entries():
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = (entry / "stat").read_text()
            parents[int(entry.name)] = int(text[text.rfind(")") + 2 :].split()[1])
    return parents


def _descends(pid: int, root: int, parents: dict[int, int]) -> bool:
    seen: set[int] = set()
    while pid in parents and pid not in seen and pid != root:
        seen.add(pid)
        pid = parents[pid]
    return pid == root


def not_descendants(pids: list[int]) -> list[int]:
    """Those of ``pids`` that do not descend from this process (nor are it), sorted."""
    me, parents = os.getpid(), _parents()
    return sorted(pid for pid in pids if pid != me and not _descends(pid, me, parents))


def left_behind(uid: int | None) -> tuple[str, ...]:
    """``pid (name)`` of every live (not zombie) process of ``uid`` descending from the harness."""
    if uid is None:
        return ()
    me, parents = os.getpid(), _parents()
    out = [
        f"{task.pid} ({task.name})"
        for task in uid_tasks(uid)
        if task.pid != me and task.state != "Z" and _descends(task.pid, me, parents)
    ]
    return tuple(sorted(out))


EAGAIN_TEXT = "Resource temporarily unavailable"
"""How bash, Python and coreutils word EAGAIN from ``fork``."""


def budget_note(output: str, identity: ToolIdentity | None, limit: int) -> tuple[str, int] | None:
    """The harness's line for a command that met the process budget, and the uid's live tasks
    now: when its output shows a failed fork or the uid is at the limit; None otherwise."""
    if limit <= 0:
        return None
    uid = identity.uid if identity is not None else os.geteuid()
    used = sum(t.threads for t in uid_tasks(uid) if t.state != "Z")
    if EAGAIN_TEXT not in output and used < limit:
        return None
    line = (
        f"[aw-harness] the process budget was reached: the tools' user may have {limit} tasks (processes "
        f"and threads; {used} now), a fork past that fails with EAGAIN; processes left running count until they end"
    )
    return line, used
