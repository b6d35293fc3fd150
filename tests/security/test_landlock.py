"""The ctypes Landlock layer: rights masked to the ABI in use (1..7), and a kernel with a newer ABI
used as an older one behaves as that older one would (real processes through the wrapper)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from aw_action.security.confinement import landlock, spawn
from aw_action.security.confinement.sandbox import Confinement, probe

KERNEL_ABI = landlock.kernel_abi()


def test_each_abi_handles_the_rights_it_knows() -> None:
    assert landlock.fs_rights(0) == 0
    assert landlock.fs_rights(1) == (1 << 13) - 1
    assert landlock.fs_rights(2) == landlock.fs_rights(1) | landlock.FS_REFER
    assert landlock.fs_rights(3) == landlock.fs_rights(2) | landlock.FS_TRUNCATE
    assert landlock.fs_rights(4) == landlock.fs_rights(3)
    assert landlock.fs_rights(5) == landlock.fs_rights(4) | landlock.FS_IOCTL_DEV
    assert landlock.fs_rights(6) == landlock.fs_rights(7) == landlock.fs_rights(9) == landlock.fs_rights(5)


def test_the_spec_words_round_trip() -> None:
    words = landlock.spec_args(5, fs=True, writable=["/a b", "/c=d"], tcp=False)
    assert landlock._parse([*words, "echo", "x"]) == (
        {"abi": "5", "fs": "1", "tcp": "0"},
        ["/a b", "/c=d"],
        ["echo", "x"],
    )


def _run(tmp_path: Path, command: str, abi: int, tcp: bool = False) -> tuple[int, str]:
    confinement = Confinement("workspace-write", tcp=tcp, writable=(str(tmp_path / "ws"),), abi=abi)
    launch = spawn.Launch(env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path / "ws", confinement=confinement)
    done = spawn.run(["bash", "-c", command], launch, timeout_s=30)
    return done.returncode, (done.stdout + done.stderr).decode()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws" / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return tmp_path


@pytest.mark.skipif(KERNEL_ABI < 4, reason="needs a kernel with Landlock ABI 4 to compare against 3")
def test_abi_3_restricts_files_but_not_tcp(ws: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    try:
        _, out = _run(ws, f"touch ../outside/x; exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected", abi=3)
        assert "Permission denied" in out and "connected" in out, out
        _, out = _run(ws, f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected", abi=KERNEL_ABI)
        assert "Permission denied" in out and "connected" not in out, out
    finally:
        server.close()


@pytest.mark.skipif(KERNEL_ABI < 2, reason="needs a kernel with Landlock ABI 2 to compare against 1")
def test_abi_1_cannot_move_files_between_folders_abi_2_can(ws: Path) -> None:
    """ABI 1 has no REFER right: the kernel refuses every cross-folder rename (EXDEV), which mv
    turns into a copy; ABI 2 grants REFER inside the writable folder."""
    for abi in (1, 2):
        (ws / "ws" / "f").write_text("x")
        _, out = _run(ws, "python3 -c \"import os; os.rename('f', 'sub/f')\" && echo moved; rm -f sub/f", abi)
        assert ("moved" in out) == (abi == 2), out


@pytest.mark.skipif(KERNEL_ABI < 3, reason="needs Landlock ABI 3 (truncate)")
def test_dev_null_stays_writable_and_truncatable(ws: Path) -> None:
    _, out = _run(ws, "echo x > /dev/null && : > /dev/null && echo ok", abi=KERNEL_ABI)
    assert out.strip() == "ok"


@pytest.mark.parametrize(("fs", "tcp"), [(True, True), (False, False)])
def test_a_kernel_offering_less_than_planned_is_refused_not_run_with_less(
    monkeypatch: pytest.MonkeyPatch, fs: bool, tcp: bool
) -> None:
    """The run plans and reports its confinement from the harness's probe; the wrapper, in the
    command's process, may see less (Landlock filtered out there: ABI 0). It used to restrict at
    what it saw, nothing at all, and run the command as if confined; it now refuses, which the
    wrapper turns into exit 126, the command not run (found by review)."""
    monkeypatch.setattr(landlock, "kernel_abi", lambda: 0)
    with pytest.raises(OSError, match="Landlock ABI 0 here, 3 planned"):
        landlock.restrict(3, fs=fs, writable=[], tcp=tcp)
    landlock.restrict(3, fs=False, writable=[], tcp=True)  # nothing asked of Landlock: nothing to refuse


def test_no_abi_still_sets_no_new_privs(ws: Path) -> None:
    _, out = _run(ws, "touch ../outside/x && grep NoNewPrivs /proc/self/status", abi=0)
    assert out.split() == ["NoNewPrivs:", "1"]
    assert (ws / "outside" / "x").exists()


def test_the_probe_reports_the_kernel_and_honours_the_cap() -> None:
    assert probe({}).landlock_abi == KERNEL_ABI
    capped = probe({"AW_SANDBOX_ABI_LIMIT": "0"})
    assert capped.landlock_abi == 0 and capped.tcp == capped.socket_filter == landlock.socket_filter_supported()
    assert "AW_SANDBOX_ABI_LIMIT=0" in capped.note or KERNEL_ABI == 0
    with pytest.raises(ValueError, match="AW_SANDBOX_ABI_LIMIT"):
        probe({"AW_SANDBOX_ABI_LIMIT": "seven"})


SOCKETS = """python3 - <<'PY'
import ctypes, socket
for name, family, kind in (("udp", socket.AF_INET, socket.SOCK_DGRAM), ("udp6", socket.AF_INET6, socket.SOCK_DGRAM),
                           ("tcp", socket.AF_INET, socket.SOCK_STREAM), ("netlink", socket.AF_NETLINK, socket.SOCK_RAW),
                           ("unix", socket.AF_UNIX, socket.SOCK_STREAM)):
    try:
        socket.socket(family, kind).close()
        print(name, "open")
    except OSError as exc:
        print(name, exc.errno)
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(425, 1, params)  # io_uring_setup: io_uring makes sockets without socket()
print("io_uring", "open" if fd >= 0 else ctypes.get_errno())
PY"""


@pytest.mark.skipif(not landlock.socket_filter_supported(), reason="needs seccomp on x86_64 or aarch64")
def test_the_socket_filter_leaves_only_unix_sockets(tmp_path: Path) -> None:
    """UDP (DNS, QUIC), raw and netlink sockets are beyond Landlock: with the network off the
    socket filter refuses them (EACCES) along with TCP and io_uring, and keeps Unix sockets."""
    (tmp_path / "ws").mkdir()

    def sockets(socket_filter: bool) -> dict[str, str]:
        confinement = Confinement("full", tcp=False, abi=0, socket_filter=socket_filter)
        launch = spawn.Launch(env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path / "ws", confinement=confinement)
        done = spawn.run(["bash", "-c", SOCKETS], launch, timeout_s=30)
        return dict(line.split(" ", 1) for line in done.stdout.decode().splitlines())

    assert sockets(True) == {
        "udp": "13",
        "udp6": "13",
        "tcp": "13",
        "netlink": "13",
        "unix": "open",
        "io_uring": "13",
    }
    unfiltered = sockets(False)
    assert unfiltered["udp"] == unfiltered["tcp"] == unfiltered["unix"] == "open", unfiltered


def test_the_socket_filter_is_asked_for_only_with_the_network_off() -> None:
    on = Confinement("workspace-write", tcp=True, abi=KERNEL_ABI, socket_filter=True)
    off = Confinement("workspace-write", tcp=False, abi=3, socket_filter=True)
    assert "sockets=unix" not in on.wrapper_spec() and "sockets=unix" in off.wrapper_spec()
    assert off.enforced(), "Landlock 3 has no TCP rules; the socket filter enforces no TCP"
    assert not Confinement("workspace-write", tcp=False, abi=3).enforced()


def test_the_wrapper_leaves_sigpipe_and_sigxfsz_at_their_defaults_as_the_spawn_server_does(ws: Path) -> None:
    """Python ignores SIGPIPE and SIGXFSZ; a command behind the wrapper gets them back, so
    ``yes | head`` ends quietly whichever path started it."""
    _, out = _run(ws, "grep SigIgn /proc/self/status; yes | head -1", abi=KERNEL_ABI)
    ignored = int(out.split()[1], 16)
    assert ignored & ((1 << (13 - 1)) | (1 << (25 - 1))) == 0, out
    assert "Broken pipe" not in out, out
