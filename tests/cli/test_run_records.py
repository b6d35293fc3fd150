"""One run, one set of records: two runs in one output folder (the CLI, and the action's
entrypoint with the shared default folder) leave the second run's files fresh at their paths,
the first run's intact in ``previous-runs/<start>-<session>/``, and an audit of the folder that
reads the second run alone."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from aw_action.sinks.previous_run import PREVIOUS_RUNS_DIR
from tests.action.launch import ActionRun, run_action, write_script
from tests.conftest import CliRun, base_env, run_cli, write_run_files
from tests.sinks.support import TOOL_SCRIPT

RECORDS = (
    "session.jsonl",
    "replay.jsonl",
    "token-usage.jsonl",
    "aw_session.jsonl",
    "context-provenance.jsonl",
    "records.sha256",
)


def _cli_run(tmp_path: Path, out: Path, script: list[dict[str, Any]]) -> CliRun:
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=script)
    return run_cli(["--config", str(config), "--prompt", str(prompt)], base_env(tmp_path, AW_OUTPUT_DIR=str(out)))


def _header(path: Path) -> dict[str, Any]:
    lines = path.read_text().splitlines()
    headers = [json.loads(line) for line in lines if json.loads(line).get("type") == "session"]
    assert len(headers) == 1, f"{path} holds {len(headers)} runs"
    value: dict[str, Any] = headers[0]
    return value


def _stamp(header: dict[str, Any]) -> str:
    return str(header["timestamp"])[:19].replace("-", "").replace(":", "") + "Z"


def test_two_cli_runs_in_one_folder_keep_their_records_apart(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _cli_run(tmp_path, out, TOOL_SCRIPT)
    assert first.returncode == 0, first.stderr
    kept = {name: (out / name).read_bytes() for name in RECORDS}
    header = _header(out / "session.jsonl")
    second = _cli_run(tmp_path, out, [{"text": "Short run.", "usage": {"input": 10, "output": 2}}])
    assert second.returncode == 0, second.stderr

    aside = out / PREVIOUS_RUNS_DIR / f"{_stamp(header)}-{header['id'][:8]}"
    assert {name: (aside / name).read_bytes() for name in RECORDS} == kept, "the first run's records, intact"
    assert f"aw-harness: the earlier run's records were moved to {aside}" in second.stderr.splitlines()

    session_id = second.events_named("session_start")[0]["session_id"]
    assert _header(out / "session.jsonl")["id"] == session_id != header["id"]
    usage = [json.loads(line) for line in (out / "token-usage.jsonl").read_text().splitlines()]
    assert len(usage) == 1 and usage[0]["input_tokens"] == 10
    assert sorted(second.result["files"]) == sorted(str(out / name) for name in RECORDS)

    audit = run_cli(["audit", str(out), "--json"], base_env(tmp_path))
    assert audit.returncode == 0, audit.stderr
    report = json.loads(audit.stdout)
    assert report["totals"]["requests"] == 1 and report["totals"]["input_tokens"] == 10
    assert all(PREVIOUS_RUNS_DIR not in source for source in report["sources"])
    archive = tmp_path / "artifact.zip"
    with zipfile.ZipFile(archive, "w") as zf:  # the artifact holds the whole folder
        for path in out.rglob("*"):
            zf.write(path, path.relative_to(out).as_posix())
    zipped = json.loads(run_cli(["audit", str(archive), "--json"], base_env(tmp_path)).stdout)
    assert zipped["totals"] == report["totals"] and zipped["sources"] == report["sources"]

    third = _cli_run(tmp_path, out, [{"text": "Again."}])
    assert third.returncode == 0
    assert len(list((out / PREVIOUS_RUNS_DIR).iterdir())) == 2


def test_a_run_that_fails_to_start_still_leaves_the_folder_to_itself(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _cli_run(tmp_path, out, TOOL_SCRIPT).returncode == 0
    config, _ = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}})
    failed = run_cli(
        ["--config", str(config), "--prompt", str(tmp_path / "missing.txt")], base_env(tmp_path, AW_OUTPUT_DIR=str(out))
    )
    assert failed.returncode == 2
    assert not [name for name in RECORDS if (out / name).exists()]
    assert failed.result["files"] == []
    assert len(list((out / PREVIOUS_RUNS_DIR).iterdir())) == 1


def _action_run(tmp_path: Path, text: str, **inputs: str) -> ActionRun:
    ws = tmp_path / "workspace"
    ws.mkdir(exist_ok=True)
    script = write_script(ws, [{"text": text}])
    base = {"model": "faux/scripted", "prompt": "Do the task.", "upload-artifacts": "false"}
    return run_action(tmp_path, {**base, **inputs}, {"AW_FAUX_SCRIPT": str(script)})


def test_two_action_steps_in_one_job_keep_their_records_apart(tmp_path: Path) -> None:
    first = _action_run(tmp_path, "First step done.")
    assert first.returncode == 0, first.stdout
    out = first.paths.runner_temp / "aw-harness"
    header = _header(out / "session.jsonl")
    second = _action_run(tmp_path, "Second step done.")
    assert second.returncode == 0, second.stdout
    assert second.outputs["session-file"] == str(out / "session.jsonl")
    assert _header(out / "session.jsonl")["id"] == second.events("session_start")[0]["session_id"]
    aside = out / PREVIOUS_RUNS_DIR / f"{_stamp(header)}-{header['id'][:8]}"
    assert _header(aside / "session.jsonl") == header
    assert "First step done." in (aside / "session.jsonl").read_text()
    assert "First step done." not in (out / "session.jsonl").read_text()
    assert "Second step done." in second.outputs["final-message"]


def test_an_output_dir_that_cannot_start_afresh_stops_the_run_and_names_no_earlier_file(tmp_path: Path) -> None:
    first = _action_run(tmp_path, "First step done.")
    out = first.paths.runner_temp / "aw-harness"
    (out / PREVIOUS_RUNS_DIR).write_text("in the way")
    kept = (out / "session.jsonl").read_bytes()
    second = _action_run(tmp_path, "Second step done.")
    assert second.returncode == 2
    assert second.outputs["session-file"] == "", "the earlier run's transcript is not this run's"
    assert "the earlier run's records cannot be moved aside" in second.result["error"]
    assert (out / "session.jsonl").read_bytes() == kept, "nothing written over it"
