"""A record file is a writer and a row in ``sinks/record_files.py`` (docs/architecture.md, "What a
change touches"): every row is a writer behind the one interface, named in the docs, moved aside
by a later run and known to the audit by the table's name; and its name is spelled, as code, in
its writer's module alone."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from aw_action.audit import sources
from aw_action.harness import run_files
from aw_action.sinks.record_files import RECORD_WRITERS, file_names, writers_for
from aw_action.sinks.record_writer import RecordWriter

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "aw_action"
DOCS = "\n".join(p.read_text() for p in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))])


def _code_strings(path: Path) -> set[str]:
    """Every string constant in the module's code; docstrings (a bare string statement) left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    }


def _sinks_modules_imported_by(module: str) -> set[str]:
    path = PACKAGE.parent / (module.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        n.module
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("aw_action.sinks.")
    }


@pytest.mark.parametrize("writer", RECORD_WRITERS, ids=lambda w: w.file_name)
def test_every_row_is_a_writer_named_in_the_docs(writer: type[RecordWriter]) -> None:
    assert issubclass(writer, RecordWriter) and not inspect.isabstract(writer), "a writer behind the interface"
    assert writer.modes and writer.modes <= {"standalone", "gh-aw"}
    assert f"`{writer.file_name}`" in DOCS, "the docs name the file"


@pytest.mark.parametrize("writer", RECORD_WRITERS, ids=lambda w: w.file_name)
def test_a_record_file_name_is_code_in_its_writers_module_alone(writer: type[RecordWriter]) -> None:
    holders = {
        ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for path in PACKAGE.rglob("*.py")
        if writer.file_name in _code_strings(path)
    }
    assert len(holders) == 1, f"{writer.file_name} is spelled in {sorted(holders)}"
    assert holders <= {writer.__module__} | _sinks_modules_imported_by(writer.__module__)


def test_the_table_says_which_files_each_mode_writes() -> None:
    assert len({w.subsystem for w in RECORD_WRITERS}) == len(RECORD_WRITERS) == len(set(file_names()))
    for mode in ("standalone", "gh-aw"):
        assert list(writers_for(mode)) == [w for w in RECORD_WRITERS if mode in w.modes]
    assert {w.file_name for w in writers_for("standalone")} ^ {w.file_name for w in writers_for("gh-aw")}, (
        "gh-aw mode writes other files than a standalone run"
    )


def test_a_later_run_moves_every_file_of_the_table_aside_and_the_audit_reads_them_by_it() -> None:
    for env in ({}, {"GITHUB_AW": "true"}):
        assert set(file_names()) <= set(run_files.run_files(env).names)
    assert set(sources.KNOWN_NAMES) <= set(file_names())
