"""The kernel sandbox, per mode, with real processes: whatever program attempts it, a write outside
the allowed folders and a TCP connection the mode forbids fail with EACCES. The commands are the
ones a bash policy's option list cannot keep up with: a ``python3 -c``, git running a program
from an option, ``find -fprint``, ``sort --compress-program``, ``tar --to-command``. The control
(``full``) runs the same commands and they succeed, so a passing test is the sandbox's doing."""

from __future__ import annotations

import socket
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from aw_action.security.confinement import spawn
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import Confinement, SandboxPlan, SandboxSettings, probe

KERNEL = probe({})
needs_landlock = pytest.mark.skipif(KERNEL.landlock_abi == 0, reason=f"no Landlock here: {KERNEL.note}")
needs_tcp_rules = pytest.mark.skipif(not KERNEL.tcp, reason="Landlock ABI < 4: no TCP rules on this kernel")
DENIED = "Permission denied"

WRITES = {
    "python": "python3 -c \"open('{out}', 'w').write('pwned')\"",
    "git-ssh-command": "git -c core.sshCommand='sh -c \"echo pwned > {out}\" ssh' ls-remote ssh://host/repo",
    "git-alias": "git -c alias.x='!echo pwned > {out}' x",
    "find-fprint": "find . -maxdepth 0 -fprint {out}",
    "sort-compress-program": "seq 1 200000 | sort -S 64K --compress-program=./compress.sh > /dev/null",
    "tar-to-command": "tar --to-command='cat > {out}' -xf data.tar",
}
CONNECTS = {
    "python": "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)\"",
    "bash-dev-tcp": "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected",
    "git-protocol": "git ls-remote git://127.0.0.1:{port}/repo",
}


class Box:
    """A workspace, a temp folder, a folder outside both, and a listening TCP socket."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.workspace = root / "ws"
        self.tmpdir = root / "tmp"
        self.outside = root / "outside"
        for folder in (self.workspace, self.tmpdir, self.outside):
            folder.mkdir()
        compress = self.workspace / "compress.sh"
        compress.write_text(f"#!/bin/sh\necho pwned > {self.outside}/sort-compress-program\nexec cat\n")
        compress.chmod(0o755)
        payload = self.workspace / "payload.txt"
        payload.write_text("pwned\n")
        with tarfile.open(self.workspace / "data.tar", "w") as tar:
            tar.add(payload, arcname="payload.txt")
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.setblocking(False)
        self.port = self.server.getsockname()[1]

    def plan(self, settings: SandboxSettings) -> SandboxPlan:
        return SandboxPlan(settings, KERNEL, str(self.workspace), str(self.tmpdir))

    def run(self, command: str, confinement: Confinement, identity: ToolIdentity | None = None) -> str:
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TMPDIR": str(self.tmpdir), "HOME": str(self.tmpdir)}
        launch = spawn.Launch(env=env, cwd=self.workspace, identity=identity, confinement=confinement)
        done = spawn.run(["bash", "-c", command], launch, timeout_s=60)
        return (done.stdout + done.stderr).decode(errors="replace")

    def accepted(self) -> bool:
        try:
            conn, _ = self.server.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    made = Box(tmp_path)
    yield made
    made.server.close()


def confinement(box: Box, mode: str, network: bool | None = None) -> Confinement:
    return box.plan(SandboxSettings(mode=mode, network=network)).confinement()  # type: ignore[arg-type]


@needs_landlock
@pytest.mark.parametrize("mode", ["read-only", "workspace-write"])
@pytest.mark.parametrize("attack", sorted(WRITES))
def test_a_write_outside_the_allowed_folders_fails_with_eacces(box: Box, mode: str, attack: str) -> None:
    out = box.outside / attack
    output = box.run(WRITES[attack].format(out=out), confinement(box, mode))
    assert not out.exists(), output
    assert DENIED in output


@pytest.mark.parametrize("attack", sorted(WRITES))
def test_control_without_the_sandbox_the_same_commands_write(box: Box, attack: str) -> None:
    out = box.outside / attack
    output = box.run(WRITES[attack].format(out=out), confinement(box, "full"))
    assert out.exists(), output


@needs_landlock
def test_read_only_writes_nothing_in_the_workspace_or_tmpdir_but_reads_and_writes_dev_null(box: Box) -> None:
    command = (
        "cat payload.txt; echo x > /dev/null && echo null-ok; touch made.txt; touch $TMPDIR/made.txt; "
        "mkdir dir; rm payload.txt; mv payload.txt moved.txt"
    )
    output = box.run(command, confinement(box, "read-only"))
    assert output.startswith("pwned\nnull-ok\n")
    assert output.count(DENIED) == 5, output
    assert sorted(p.name for p in box.workspace.iterdir()) == ["compress.sh", "data.tar", "payload.txt"]
    assert list(box.tmpdir.iterdir()) == []


@needs_landlock
def test_workspace_write_writes_the_workspace_and_tmpdir(box: Box) -> None:
    command = "mkdir -p a/b && echo hi > a/b/c.txt && mv a/b/c.txt moved.txt && mktemp && rm payload.txt && echo ok"
    output = box.run(command, confinement(box, "workspace-write"))
    assert output.rstrip().endswith("ok"), output
    assert (box.workspace / "moved.txt").read_text() == "hi\n"
    assert len(list(box.tmpdir.iterdir())) == 1


@needs_tcp_rules
@pytest.mark.parametrize("mode", ["read-only", "workspace-write"])
@pytest.mark.parametrize("attack", sorted(CONNECTS))
def test_a_tcp_connection_the_mode_forbids_fails_with_eacces(box: Box, mode: str, attack: str) -> None:
    output = box.run(CONNECTS[attack].format(port=box.port), confinement(box, mode))
    assert DENIED in output, output
    assert not box.accepted()


@needs_tcp_rules
def test_read_only_forbids_tcp_even_when_the_network_is_asked_for(box: Box) -> None:
    output = box.run(CONNECTS["python"].format(port=box.port), confinement(box, "read-only", network=True))
    assert DENIED in output
    assert not box.accepted()


@pytest.mark.parametrize("mode,network", [("workspace-write", True), ("full", None)])
def test_tcp_connects_where_the_mode_allows_it(box: Box, mode: str, network: bool | None) -> None:
    output = box.run(CONNECTS["bash-dev-tcp"].format(port=box.port), confinement(box, mode, network))
    assert "connected" in output, output
    assert box.accepted()


@pytest.mark.parametrize("mode", ["read-only", "workspace-write", "full"])
def test_no_new_privs_is_set_in_every_mode(box: Box, mode: str) -> None:
    output = box.run("grep NoNewPrivs /proc/self/status", confinement(box, mode))
    assert output.split() == ["NoNewPrivs:", "1"]


def test_a_set_user_id_program_gains_nothing(box: Box, tool_user: ToolIdentity, shared_tmp: Path) -> None:
    """With no_new_privs, the tools' user running a set-user-id root binary stays itself."""
    copy = shared_tmp / "id-suid"
    subprocess.run(["cp", "/usr/bin/id", str(copy)], check=True)
    copy.chmod(0o4755)
    launch = spawn.Launch(env={"PATH": "/usr/bin:/bin"}, cwd="/", identity=tool_user)
    unwrapped = spawn.run([str(copy), "-u"], launch, timeout_s=30)
    assert unwrapped.stdout.strip() == b"0", "control: without the wrapper the set-user-id bit makes it root"
    output = box.run(f"{copy} -u", confinement(box, "full"), identity=tool_user)
    assert output.strip() == str(tool_user.uid)


@needs_landlock
def test_the_tools_user_is_confined_too(box: Box, tool_user: ToolIdentity, shared_tmp: Path) -> None:
    work = shared_tmp / "ws"
    work.mkdir()
    (shared_tmp / "tmp").mkdir()
    outside = shared_tmp / "outside"
    outside.mkdir(mode=0o777)
    outside.chmod(0o777)
    for path in (work, shared_tmp / "tmp"):
        path.chmod(0o777)
    plan = SandboxPlan(SandboxSettings(mode="workspace-write"), KERNEL, str(work), str(shared_tmp / "tmp"))
    env = {"PATH": "/usr/bin:/bin"}
    launch = spawn.Launch(env=env, cwd=work, identity=tool_user, confinement=plan.confinement())
    done = spawn.run(["bash", "-c", f"id -u; touch in.txt; touch {outside}/out.txt"], launch, timeout_s=30)
    assert done.stdout.decode().strip() == str(tool_user.uid)
    assert (work / "in.txt").stat().st_uid == tool_user.uid
    assert not (outside / "out.txt").exists()
    assert DENIED in done.stderr.decode()


def test_a_confinement_the_kernel_cannot_apply_never_runs_the_command(box: Box) -> None:
    """The wrapper refuses to go on (exit 126) rather than run the command unconfined."""
    broken = Confinement("read-only", tcp=False, abi=KERNEL.landlock_abi or 1)
    launch = spawn.Launch(env={"PATH": "/usr/bin:/bin"}, cwd=box.workspace, confinement=broken)
    argv = spawn.command(["touch", str(box.outside / "ran")], launch)
    argv[argv.index("abi=" + str(broken.abi))] = "abi=not-a-number"
    done = subprocess.run(argv, cwd=box.workspace, capture_output=True, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 126
    assert b"aw-harness sandbox: not applied" in done.stderr
    assert not (box.outside / "ran").exists()
