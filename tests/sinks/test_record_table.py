"""A record file is a row of ``run/record_table.py`` and, for a sink's file, a writer in
``sinks/record_files.py`` (docs/architecture.md, "What a change touches"): every writer is behind
the one interface, names its row and is named in the docs; a later run moves aside what the
table says and the audit knows the files by their names; a name is spelled, as code, in the
table alone (or in its writer's module, below the table); and a run's files are the table's,
digested as it says."""

from __future__ import annotations

import ast
import fnmatch
import inspect
from pathlib import Path

import pytest

from aw_action.audit import sources
from aw_action.harness import run_files
from aw_action.run.record_table import RECORD_TABLE, RecordFile
from aw_action.sinks.previous_run import RunFiles
from aw_action.sinks.record_files import RECORD_WRITERS, file_names, writers_for
from aw_action.sinks.record_writer import RecordWriter
from tests.sinks.support import scripted_run

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
def test_every_writer_names_its_row_of_the_one_table(writer: type[RecordWriter]) -> None:
    assert writer.row in RECORD_TABLE
    assert (writer.file_name, writer.modes) == (writer.row.name, writer.row.modes)
    assert writer.row.writer == Path(inspect.getfile(writer)).relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("row", RECORD_TABLE, ids=lambda r: r.name)
def test_a_record_file_name_is_code_in_the_table_alone(row: RecordFile) -> None:
    assert (PACKAGE / row.writer).is_file(), "the row names its writer's module"
    holders = {
        path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py") if row.name in _code_strings(path)
    }
    below = {"agent/transcript.py", "security/records/record_manifest.py"}  # below the table: it imports theirs
    assert holders == ({row.writer} if row.writer in below else {"run/record_table.py"}), holders


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


def test_the_mode_decides_only_the_rows_it_names() -> None:
    standalone, gh_aw = run_files.run_files({}), run_files.run_files({"GITHUB_AW": "true"})
    for row in RECORD_TABLE:
        assert _moved(standalone, row.name) == (row.at_start != "kept"), row.name
        assert _moved(gh_aw, row.name) == (row.at_start == "moved"), row.name


def _moved(files: RunFiles, name: str) -> bool:
    return name in files.names or name in files.patterns


def test_a_runs_files_are_the_tables_and_digested_as_it_says(tmp_path: Path) -> None:
    script = [
        {"text": "Look.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
        {"tool_calls": [{"name": "create_issue", "arguments": {"title": "Crash", "body": "Steps."}}]},
        {"text": "Done."},
    ]
    run = scripted_run(tmp_path, script, {"safe-outputs": {"create-issue": {"max": 1}}})
    assert run.returncode == 0, run.stderr
    listed = {line.split("  ", 1)[1] for line in (run.output_dir / "records.sha256").read_text().splitlines()}
    files = sorted(p.name for p in run.output_dir.iterdir() if p.is_file())
    assert {"session.jsonl", "records.sha256", "safe-outputs.jsonl", "safe-outputs.config.json"} <= set(files)
    for name in files:
        [row] = [r for r in RECORD_TABLE if fnmatch.fnmatchcase(name, r.name)]
        assert (name in listed) == (row.at_end == "digested"), name
