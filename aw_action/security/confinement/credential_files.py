"""Credential files kept from the agent's tools while a run is in progress.

A credential can live in a file the environment names (the credential table's ``file`` rows:
``GOOGLE_APPLICATION_CREDENTIALS``). google-github-actions/auth writes that file into the
workspace, readable by the runner's user, and it holds the job's ID-token request token: a tool
that read it could mint the job's OIDC tokens for any audience. The harness has read it (provider
setup, before any tool); for the run it is made the harness's own, mode ``0600``, and given back
as it was at the seal. Only where the tools run as another user than the harness
(``IdentityDecision.protected``), which is when a file mode keeps them out.

A name that is not a regular file reached without following a symbolic link is left alone and
reported: a link could point anywhere, and changing its target is not the harness's to do.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from aw_action.lazy_dataclass import dataclass


@dataclass(frozen=True)
class WithheldFile:
    """A file taken from the tools for the run, and what it was before."""

    path: str
    uid: int
    gid: int
    mode: int


def _open(path: str) -> int:
    return os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)


def unopenable(path: str) -> str | None:
    """Why the harness cannot open ``path`` as a regular file without following a link, or
    ``None`` when it can."""
    try:
        fd = _open(path)
    except OSError as exc:
        return f"{exc.strerror or exc} (a symbolic link is not followed)"
    try:
        return None if stat.S_ISREG(os.fstat(fd).st_mode) else "not a regular file"
    finally:
        os.close(fd)


def withhold(paths: Iterable[str]) -> tuple[list[WithheldFile], list[str]]:
    """Make each file the harness's own with mode ``0600``. Returns what was withheld and, for
    each path that was not, why (one line each)."""
    withheld: list[WithheldFile] = []
    problems: list[str] = []
    for path in dict.fromkeys(p for p in paths if p):
        try:
            fd = _open(path)
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror or exc} (a symbolic link is not followed)")
            continue
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                problems.append(f"{path}: not a regular file")
                continue
            os.fchown(fd, os.geteuid(), os.getegid())
            os.fchmod(fd, 0o600)
            withheld.append(WithheldFile(path, st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)))
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror or exc}")
        finally:
            os.close(fd)
    return withheld, problems


def give_back(files: Iterable[WithheldFile]) -> list[str]:
    """Restore each file's owner and mode; returns a line for each that could not be."""
    problems: list[str] = []
    for file in files:
        try:
            fd = _open(file.path)
        except OSError as exc:
            problems.append(f"{file.path}: {exc.strerror or exc}")
            continue
        try:
            os.fchown(fd, file.uid, file.gid)
            os.fchmod(fd, file.mode)
        except OSError as exc:
            problems.append(f"{file.path}: {exc.strerror or exc}")
        finally:
            os.close(fd)
    return problems
