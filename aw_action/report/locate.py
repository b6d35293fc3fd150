"""Where the runs are: the paths given to ``aw-harness report`` as the artifacts they hold.

A path is one of:

- a run's records: a folder with a record file or ``records.sha256`` at its top (a run's output
  folder, or one artifact downloaded with ``actions/download-artifact``'s ``name:``);
- an artifact zip (as a run's page serves it);
- a folder of downloaded artifacts (``actions/download-artifact`` without ``name:``, or ``gh run
  download``): each subfolder and each ``.zip`` at its top is one artifact. A subfolder that holds
  no records is still an artifact (the report lists it as such), never skipped.

Earlier runs' records (``previous-runs/``, ``sinks/previous_run.py``) are not artifacts. Every
place keeps the name people know it by (the folder's or the zip's), and places come in the
order of the paths, each folder's artifacts sorted by name.
"""

from __future__ import annotations

from pathlib import Path

from aw_action.lazy_dataclass import dataclass
from aw_action.security.records.record_manifest import MANIFEST_FILE
from aw_action.sinks.previous_run import PREVIOUS_RUNS_DIR
from aw_action.sinks.record_files import file_names

RUN_MARKERS = frozenset({MANIFEST_FILE, *file_names()})
"""A folder holding one of these at its top holds a run's records."""


class ReportInputError(Exception):
    """A path given to the report does not exist (exit 2)."""


@dataclass(frozen=True)
class Place:
    """One artifact: a folder or a zip, and the name the report gives it."""

    label: str
    path: Path

    @property
    def is_zip(self) -> bool:
        return self.path.suffix == ".zip" and self.path.is_file()


def holds_run(folder: Path) -> bool:
    return any((folder / name).exists() or (folder / name).is_symlink() for name in RUN_MARKERS)


def locate(paths: list[Path]) -> list[Place]:
    """The artifacts under ``paths``; ``ReportInputError`` naming a path that does not exist."""
    places: list[Place] = []
    for path in paths:
        if not path.exists():
            raise ReportInputError(f"{path}: no such file or directory")
        if path.is_file() or holds_run(path):
            places.append(Place(path.name or str(path), path))
            continue
        children = sorted(
            child
            for child in path.iterdir()
            if (child.is_dir() and not child.is_symlink() and child.name != PREVIOUS_RUNS_DIR)
            or (child.suffix == ".zip" and child.is_file())
        )
        places.extend(Place(child.name, child) for child in children)
        if not children:
            places.append(Place(path.name or str(path), path))  # listed as holding no records
    return places
