"""The spawn server (``security/confinement/spawn_server.py``, the harness's side in ``served.py``): a confined
command ``spawn.start`` hands it gets what the exec wrapper gives (its environment minus
credential names, its cwd, no other descriptor, the tools' user, ``no_new_privs`` and the Landlock
domain), the server itself cannot be read by the tools' user, and a server that dies, answers
nonsense or names a pid that is not its child costs a failed start at most, never a kill
elsewhere."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from aw_action.security.confinement import landlock, spawn
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import UNCONFINED, Confinement
from aw_action.security.confinement.served import ServedProcess, SpawnServer
from tests.procfs import processes

KERNEL_ABI = landlock.kernel_abi()
PATH = {"PATH": "/usr/bin:/bin"}


async def _start(command: str, launch: spawn.Launch) -> tuple[spawn.Process, int]:
    """``bash -c command`` as the bash tool starts it; returns the process and its output's read end."""
    read_fd, write_fd = os.pipe()
    try:
        proc = await spawn.start(
            ["bash", "-c", command], launch, stdout=write_fd, stderr=spawn.STDOUT, new_session=True
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    return proc, read_fd


def _read_all(fd: int) -> str:
    with os.fdopen(fd, "rb") as stream:
        return stream.read().decode()


async def _run(command: str, launch: spawn.Launch) -> tuple[int, str]:
    proc, read_fd = await _start(command, launch)
    output = await asyncio.to_thread(_read_all, read_fd)
    return await proc.wait(), output


def _launch(cwd: Path, confinement: Confinement = UNCONFINED, **kwargs: object) -> spawn.Launch:
    return spawn.Launch(env=dict(PATH), cwd=cwd, confinement=confinement, **kwargs)  # type: ignore[arg-type]


def test_confined_commands_start_in_one_server_not_in_the_harness(tmp_path: Path) -> None:
    async def go() -> list[tuple[int, str, bool]]:
        results = []
        for _ in range(2):
            proc, read_fd = await _start("echo $PPID", _launch(tmp_path))
            text = await asyncio.to_thread(_read_all, read_fd)
            results.append((await proc.wait(), text, isinstance(proc, ServedProcess)))
        return results

    (code1, ppid1, served1), (code2, ppid2, served2) = asyncio.run(go())
    assert (code1, code2, served1, served2) == (0, 0, True, True)
    server = int(ppid1)
    assert server == int(ppid2) != os.getpid()
    cmdline = Path(f"/proc/{server}/cmdline").read_bytes().split(b"\0")
    assert cmdline[:4] == [spawn.helper_python().encode(), b"-I", b"-S", b"-c"]
    assert b"spawn server" in cmdline[4], "behind the wrapper, the server's own source runs"


def test_an_unconfined_launch_or_a_new_pipe_never_goes_to_a_server(tmp_path: Path) -> None:
    async def go() -> tuple[object, object]:
        plain = await spawn.start(["true"], spawn.Launch(env=dict(PATH), cwd=tmp_path))
        piped = await spawn.start(["true"], _launch(tmp_path), stdout=spawn.PIPE)
        await plain.wait()
        await piped.wait()
        return plain, piped

    plain, piped = asyncio.run(go())
    assert not isinstance(plain, ServedProcess) and not isinstance(piped, ServedProcess)


def test_a_served_command_gets_exactly_its_environment_cwd_and_descriptors(tmp_path: Path) -> None:
    leaked_r, leaked_w = os.pipe()
    for fd in (leaked_r, leaked_w):
        os.set_inheritable(fd, True)
    env = {**PATH, "KEEP": "me", "ANTHROPIC_API_KEY": "sk-ant-x", "MY_SERVICE_PASSWORD": "pw"}
    os.environ["AW_TEST_HARNESS_ONLY"] = "harness"
    try:
        launch = spawn.Launch(env=env, cwd=tmp_path, confinement=UNCONFINED)
        code, out = asyncio.run(_run("env; echo ==; pwd; echo ==; ls -l /proc/self/fd", launch))
    finally:
        del os.environ["AW_TEST_HARNESS_ONLY"]
        os.close(leaked_r)
        os.close(leaked_w)
    environ, cwd, fds = out.split("==\n")
    assert code == 0
    names = {line.split("=", 1)[0] for line in environ.splitlines()} - {"PWD", "SHLVL", "_"}  # bash's own
    assert names == {"PATH", "KEEP"}
    assert Path(cwd.strip()) == tmp_path
    links = [line.split()[-3:] for line in fds.splitlines() if "->" in line]
    assert {int(link[0]) for link in links} <= {0, 1, 2, 3}, fds  # 3: ls's own listing of the folder
    assert not any(link[2].startswith("socket:") for link in links), "the server's socket reached the command"


@pytest.mark.skipif(KERNEL_ABI < 1, reason="the kernel has no Landlock")
def test_a_served_command_is_in_the_kernel_sandbox(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside").mkdir()
    confinement = Confinement("workspace-write", tcp=False, writable=(str(tmp_path / "ws"),), abi=KERNEL_ABI)
    command = "touch inside && echo wrote-inside; touch ../outside/x || echo refused; grep NoNewPrivs /proc/self/status"
    code, out = asyncio.run(_run(command, _launch(tmp_path / "ws", confinement)))
    assert code == 0
    assert "wrote-inside" in out and "refused" in out and "Permission denied" in out, out
    assert not (tmp_path / "outside" / "x").exists()
    assert out.split()[-2:] == ["NoNewPrivs:", "1"]


def test_no_new_privs_holds_without_landlock_too(tmp_path: Path) -> None:
    _, out = asyncio.run(_run("grep NoNewPrivs /proc/self/status", _launch(tmp_path)))
    assert out.split() == ["NoNewPrivs:", "1"]


def test_the_server_runs_as_the_tools_user_and_they_cannot_read_it(shared_tmp: Path, tool_user: ToolIdentity) -> None:
    launch = _launch(shared_tmp, identity=tool_user)
    command = "id -u; echo $PPID; cat /proc/$PPID/environ >/dev/null && echo read-it; echo end"
    _, out = asyncio.run(_run(command, launch))
    uid, server = out.split()[:2]
    status = Path(f"/proc/{server}/status").read_text()
    server_uids = next(line.split()[1:] for line in status.splitlines() if line.startswith("Uid:"))
    assert int(uid) == tool_user.uid and set(server_uids) == {str(tool_user.uid)}
    assert "read-it" not in out and "Permission denied" in out, out


def test_a_command_that_cannot_start_is_an_error_and_the_server_stays(tmp_path: Path) -> None:
    async def go() -> tuple[str, str]:
        first = await _run("echo $PPID", _launch(tmp_path))
        with pytest.raises(OSError):
            await _start("true", _launch(tmp_path / "missing"))
        second = await _run("echo $PPID", _launch(tmp_path))
        return first[1], second[1]

    first, second = asyncio.run(go())
    assert first == second


def test_a_dead_server_ends_its_commands_as_killed_and_the_next_command_gets_a_new_one(tmp_path: Path) -> None:
    async def go() -> tuple[int, int, int, int]:
        proc, read_fd = await _start("echo $PPID; exec sleep 60", _launch(tmp_path))
        with os.fdopen(read_fd, "rb") as stream:
            server = int(await asyncio.to_thread(stream.readline))
            os.kill(server, signal.SIGKILL)
            code = await asyncio.wait_for(proc.wait(), 30)
        os.killpg(proc.pid, signal.SIGKILL)  # the orphaned sleep
        again = await _run("echo $PPID", _launch(tmp_path))
        return server, code, again[0], int(again[1])

    old, code, again_code, new = asyncio.run(go())
    assert code == -signal.SIGKILL
    assert again_code == 0 and new != old


class _FakeServerProcess:
    """A process standing in for the server (a real child that does nothing)."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        self.pid = self._proc.pid
        self.stderr = None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode

    def poll(self) -> int | None:
        return self._proc.poll()

    def kill(self) -> None:
        self._proc.kill()
        self._proc.wait()


def _request(channel: socket.socket) -> dict[str, object]:
    (length,) = struct.unpack(">I", channel.recv(4))
    data = b""
    while len(data) < length:
        data += channel.recv(length - len(data))
    return dict(json.loads(data))


def test_a_pid_that_is_not_the_servers_child_is_never_killed_and_nonsense_closes_the_server() -> None:
    ours, theirs = socket.socketpair()
    fake = _FakeServerProcess()
    server = SpawnServer(fake, ours)

    async def go() -> tuple[ServedProcess, int]:
        task = asyncio.ensure_future(server.run(["true"], PATH, "/", [], (None, None, None), True))
        request = await asyncio.to_thread(_request, theirs)
        theirs.sendall(json.dumps({"id": request["id"], "pid": os.getpid()}).encode() + b"\n")
        proc = await task
        theirs.sendall(b"not json\n")
        return proc, await asyncio.wait_for(proc.wait(), 30)

    try:
        proc, code = asyncio.run(go())
        assert proc.group is None, "the harness's own process is not the server's child"
        assert code == -signal.SIGKILL and not server.alive and "bad answer" in server.reason
        assert fake.poll() is not None, "a server that answered nonsense is killed"
        with pytest.raises(OSError):
            server.start(["true"], PATH, "/", [], (None, None, None), True)
    finally:
        server.close("test over")
        theirs.close()


@pytest.mark.skipif(not landlock.socket_filter_supported(), reason="needs seccomp on x86_64 or aarch64")
def test_a_served_command_keeps_the_socket_filter(tmp_path: Path) -> None:
    """The seccomp filter the wrapper installs with the network off is the server's too, so each
    command it forks inherits it: no UDP or TCP socket, Unix ones kept."""
    command = (
        "python3 -c 'import socket\n"
        "for f, k in ((socket.AF_INET, socket.SOCK_DGRAM), (socket.AF_INET, socket.SOCK_STREAM), "
        "(socket.AF_UNIX, socket.SOCK_STREAM)):\n"
        '    try: socket.socket(f, k).close(); print("open")\n'
        "    except OSError as e: print(e.errno)'"
    )
    confinement = Confinement("full", tcp=False, abi=0, socket_filter=True)
    code, out = asyncio.run(_run(command, _launch(tmp_path, confinement)))
    assert (code, out.split()) == (0, ["13", "13", "open"]), out


def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, state) of the processes whose parent is ``pid``."""
    return [(p.pid, p.state) for p in processes(zombies=True) if p.ppid == pid]


def test_orphans_are_reaped_by_the_server_as_they_die_and_every_exit_is_still_reported(tmp_path: Path) -> None:
    """Processes a command leaves behind are re-parented to the server (its subreaper) and reaped
    when they die, not left as zombies until the run's end; the commands' own exit codes still
    arrive."""
    parents = tmp_path / "parents"
    orphan = "import os, time; time.sleep(0.3); print(os.getppid(), flush=True)"
    command = f"for i in 1 2 3; do python3 -c '{orphan}' >> {parents} & done; echo $PPID"

    async def go() -> tuple[list[int], int, list[tuple[int, str]]]:
        proc, read_fd = await _start(command, _launch(tmp_path))
        server = int((await asyncio.to_thread(_read_all, read_fd)).strip())
        codes = [await proc.wait()]
        for code in (0, 7, 1):
            codes.append((await _run(f"exit {code}", _launch(tmp_path)))[0])
        await asyncio.sleep(1.0)
        return codes, server, _children(server)

    codes, server, children = asyncio.run(go())
    assert codes == [0, 0, 7, 1]
    assert parents.read_text().split() == [str(server)] * 3, "the orphans were re-parented to the server"
    assert [pid for pid, state in children if state == "Z"] == [], "an orphan left as a zombie"


def test_answers_are_read_on_the_event_loop_and_follow_a_new_loop(tmp_path: Path) -> None:
    """No thread reads the server's answers (each command's start and end reach the waiting task
    without a hand-off between threads), and a server outlives its loop: the next run's loop
    reads its answers."""
    import threading

    async def go() -> tuple[int, str, list[str]]:
        code, out = await _run("echo $PPID", _launch(tmp_path))
        readers = [t.name for t in threading.enumerate() if t.name.startswith("spawn-server")]
        return code, out, readers

    first = asyncio.run(go())
    second = asyncio.run(go())
    assert first[0] == second[0] == 0
    assert first[1] == second[1], "the same server served both loops"
    assert first[2] == second[2] == [], "a thread reads the answers"


async def test_a_server_that_died_unnoticed_between_commands_is_replaced_and_the_command_runs_once(
    tmp_path: Path,
) -> None:
    """A run's end kills the tools' processes, the spawn server among them; a process hosting
    another run (the tests) may find it dead only when it sends the next request (it was killed
    but not yet reaped when looked at). The request never reached it, so the command did not
    start: a new server starts it, once."""
    launch = _launch(tmp_path)
    assert await _run("echo first >> runs.txt", launch) == (0, "")
    server = spawn._server(None, UNCONFINED)  # the one that ran the first command
    server.proc.kill()
    server.proc.wait()
    server.proc.poll = lambda: None  # type: ignore[method-assign]  # as if not reaped yet
    code, output = await _run("echo second >> runs.txt; echo ran", launch)
    assert (code, output) == (0, "ran\n")
    assert (tmp_path / "runs.txt").read_text() == "first\nsecond\n"
    assert not server.alive and server is not spawn._server(None, UNCONFINED)
