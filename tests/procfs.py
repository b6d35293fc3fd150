"""The machine's processes as ``/proc`` lists them, for tests that look for what a run left behind.

One walk: a process that ends while it is read is left out, as is one whose files cannot be read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class Process:
    pid: int
    ppid: int
    state: str
    """``stat``'s state letter: ``Z`` for a zombie."""
    path: Path
    """Its ``/proc/<pid>`` folder."""

    def read(self, name: str) -> bytes | None:
        """``/proc/<pid>/<name>``'s bytes, or None once the process is gone or they cannot be read."""
        try:
            return (self.path / name).read_bytes()
        except OSError:
            return None

    def argv(self) -> list[bytes]:
        return (self.read("cmdline") or b"").split(b"\0")


def processes(*, zombies: bool = False) -> list[Process]:
    """Every process, zombies only when asked for."""
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) < 2 or (fields[0] == "Z" and not zombies):
            continue
        found.append(Process(int(entry.name), int(fields[1]), fields[0], entry))
    return found
