"""Fixtures for the security tests: a real unprivileged user (created with useradd when the tests
run as root on Linux; the tests that need one are skipped otherwise, with the reason)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from aw_action.security.confinement.identity import ToolIdentity

TEST_USER = "aw-test-agent"


def _ensure_user() -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam(TEST_USER)
    except KeyError:
        pass
    useradd = shutil.which("useradd")
    if useradd is None:
        return None
    subprocess.run(
        [useradd, "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/bin/sh", TEST_USER],
        check=False,
        capture_output=True,
    )
    try:
        return pwd.getpwnam(TEST_USER)
    except KeyError:
        return None


@pytest.fixture(scope="session")
def tool_user() -> ToolIdentity:
    """An unprivileged user the tests switch tools to (root only)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("tool identities are a Linux feature")
    if os.geteuid() != 0:
        pytest.skip("switching users needs root; run the security tests as root to exercise it")
    entry = _ensure_user()
    if entry is None:
        pytest.skip(f"could not create the test user {TEST_USER} (no useradd?)")
    return ToolIdentity(uid=entry.pw_uid, gid=entry.pw_gid, name=entry.pw_name, home="/tmp")


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp dir other users can traverse (pytest's own is 0700)."""
    path = Path(tempfile.mkdtemp(prefix="aw-sec-"))
    os.chmod(path, 0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def user_dir(shared_tmp: Path, tool_user: ToolIdentity) -> Path:
    """A directory the tool user owns (a workspace checked out by the runner's user)."""
    work = shared_tmp / "user-owned"
    work.mkdir()
    os.chown(work, tool_user.uid, tool_user.gid)
    return work
