"""Inputs fail closed (issue 10, item 2): a hostile config, prompt, import or output dir gives one
line naming the file, exit 2, and never a hang, a traceback or unbounded memory. Through the real
CLI as a subprocess, with a bound that turns a hang into a failure."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from aw_action.environment.strict_json import MAX_JSON_DEPTH
from aw_action.exits import InvocationError
from aw_action.run.config import RunConfig
from aw_action.run.input_files import MAX_INPUT_BYTES, read_input_text, read_json_file
from aw_action.run.prompt_files import resolve_imports
from tests.conftest import CliRun, base_env, run_cli, write_run_files

HANG_BOUND_S = 30


def cli(tmp_path: Path, config: Path, prompt: Path, **env: str) -> CliRun:
    return run_cli(["--config", str(config), "--prompt", str(prompt)], base_env(tmp_path, **env), timeout=HANG_BOUND_S)


def assert_invocation_error(run: CliRun, fragment: str) -> None:
    assert run.returncode == 2, run.stderr
    assert run.result["stop_reason"] == "invocation_error" and fragment in run.result["error"], run.result
    assert "Traceback" not in run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("aw-harness: error:")]
    assert len(errors) == 1 and fragment in errors[0]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, "Do it.", [{"text": "done"}])


def test_a_fifo_config_is_refused_at_once(tmp_path: Path, files: tuple[Path, Path]) -> None:
    fifo = tmp_path / "config.fifo"
    os.mkfifo(fifo)
    assert_invocation_error(cli(tmp_path, fifo, files[1]), "config file is a FIFO (named pipe), not a regular file")


def test_a_fifo_prompt_is_refused_at_once(tmp_path: Path, files: tuple[Path, Path]) -> None:
    fifo = tmp_path / "prompt.fifo"
    os.mkfifo(fifo)
    assert_invocation_error(cli(tmp_path, files[0], fifo), "prompt file is a FIFO (named pipe), not a regular file")


@pytest.mark.parametrize(("path", "fragment"), [("/dev/zero", "character device"), ("/", "directory")])
def test_devices_and_directories_are_not_configs(
    tmp_path: Path, files: tuple[Path, Path], path: str, fragment: str
) -> None:
    assert_invocation_error(cli(tmp_path, Path(path), files[1]), f"config file is a {fragment}")


def test_an_oversized_sparse_file_is_refused_without_reading_it(tmp_path: Path, files: tuple[Path, Path]) -> None:
    big = tmp_path / "huge.txt"
    with big.open("wb") as fh:
        fh.truncate(2 * 1024**3)  # 2 GB, sparse
    assert_invocation_error(cli(tmp_path, files[0], big), "prompt file is larger than 10 MiB")


def test_a_fifo_import_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    os.mkfifo(tmp_path / "ws" / "import.md")
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}, "imports": ["import.md"]})
    assert_invocation_error(cli(tmp_path, config, prompt), "imports[0]: import.md: is a FIFO")


@pytest.mark.parametrize("bad", ["", "   ", "a\x00b"])
def test_empty_and_nul_import_paths_are_refused(tmp_path: Path, bad: str) -> None:
    config = RunConfig.model_validate({"engine": {"model": "faux/scripted"}, "imports": [bad]})
    with pytest.raises(InvocationError, match=r"^imports\[0\]: the path is empty or holds a NUL"):
        resolve_imports(config, tmp_path)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a":' * (MAX_JSON_DEPTH + 1) + "1" + "}" * (MAX_JSON_DEPTH + 1), "nested deeper than 64 levels"),
        ('{"timeout-minutes": NaN}', "NaN is not a number JSON allows"),
        ('{"timeout-minutes": Infinity}', "Infinity is not a number JSON allows"),
    ],
)
def test_hostile_json_is_one_line(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "config.json"
    path.write_text(text)
    with pytest.raises(InvocationError, match=fragment):
        read_json_file(path, "config file")


def test_a_number_too_large_for_a_float_is_a_field_error(tmp_path: Path, files: tuple[Path, Path]) -> None:
    files[0].write_text(json.dumps({"engine": {"model": "faux/scripted"}})[:-1] + ', "timeout-minutes": 1e400}')
    assert_invocation_error(cli(tmp_path, *files), "timeout-minutes")


def test_invalid_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes(b"ok \xff\xfe")
    with pytest.raises(InvocationError, match=r"^prompt file is not UTF-8 text \(byte 3\)"):
        read_input_text(path, "prompt file")


def test_the_size_cap_is_exact(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_bytes(b"x" * MAX_INPUT_BYTES)
    assert len(read_input_text(path, "prompt file")) == MAX_INPUT_BYTES
    path.write_bytes(b"x" * (MAX_INPUT_BYTES + 1))
    with pytest.raises(InvocationError, match="larger than"):
        read_input_text(path, "prompt file")


def test_an_output_dir_that_is_a_file_is_an_invocation_error(tmp_path: Path, files: tuple[Path, Path]) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("not a dir")
    summary = tmp_path / "summary.md"
    run = cli(tmp_path, *files, AW_OUTPUT_DIR=str(blocker), GITHUB_STEP_SUMMARY=str(summary))
    assert_invocation_error(run, f"output dir {blocker}: not usable")
    assert "output dir" in summary.read_text(), "the step summary says why"


def test_a_read_only_output_dir_is_an_invocation_error(tmp_path: Path, files: tuple[Path, Path]) -> None:
    """A read-only mount (root ignores permission bits, so the test mounts one)."""
    target = tmp_path / "ro"
    target.mkdir()
    mounted = subprocess.run(["mount", "--bind", "-o", "ro", str(target), str(target)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot make a read-only bind mount here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(target)], capture_output=True)
        run = cli(tmp_path, *files, AW_OUTPUT_DIR=str(target))
        assert_invocation_error(run, f"output dir {target}: not usable")
    finally:
        subprocess.run(["umount", str(target)], capture_output=True)
