"""Records a replay refuses, each with exit 2, one line naming the file and the reason, one report
object on stdout and never a traceback: cut short or changed since the run (``records.sha256``
says so), no manifest, no replay record, another recording format, a workflow's run, an
artifact zip no upload could have made; and arguments that do not fit."""

from __future__ import annotations

import json
import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from aw_action.github.archive import zip_directory
from tests.replay.rig import Recorded, Replayed, lines, make_workspace, record_faux, refix_manifest, replay


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return record_faux(tmp_path_factory.mktemp("faux-rec"))


@pytest.fixture
def copy(recorded: Recorded, tmp_path: Path) -> Path:
    """A copy of the recording to spoil."""
    return Path(shutil.copytree(recorded.records, tmp_path / "records"))


def refused(done: Replayed, *words: str, assembled: bool = False) -> str:
    """``assembled``: refused by the replay run itself (its result is in the report)."""
    assert done.run.returncode == 2, done.run.stderr
    assert "Traceback" not in done.run.stderr
    report = done.run.result
    assert report["replay"] == "unusable" and report["exit_code"] == 2
    assert (report["run"] or {}).get("stop_reason") == ("invocation_error" if assembled else None)
    message = str(report["message"])
    for word in words:
        assert word in message, message
    assert message in done.run.stderr
    return message


def test_a_recording_cut_short_is_refused(copy: Path, tmp_path: Path) -> None:
    path = copy / "replay.jsonl"
    path.write_text("".join(line + "\n" for line in path.read_text().splitlines()[:-1]))
    refused(replay(tmp_path, copy), "replay.jsonl", "cut short", "records.sha256")


def test_a_changed_transcript_is_refused(copy: Path, tmp_path: Path) -> None:
    path = copy / "session.jsonl"
    path.write_text(path.read_text().replace("one", "0ne", 1))
    refused(replay(tmp_path, copy), "session.jsonl", "changed")


def test_records_without_their_manifest_are_refused(copy: Path, tmp_path: Path) -> None:
    (copy / "records.sha256").unlink()
    refused(replay(tmp_path, copy), "records.sha256 is missing")


def test_records_without_a_replay_record_say_so(copy: Path, tmp_path: Path) -> None:
    (copy / "replay.jsonl").unlink()
    refused(replay(tmp_path, copy), "holds no replay.jsonl")


def test_a_recording_in_another_format_names_the_version_that_wrote_it(copy: Path, tmp_path: Path) -> None:
    path = copy / "replay.jsonl"
    rows = lines(path)
    rows[0].update(format=99, harness="9.9.9")
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    refix_manifest(copy, "replay.jsonl")
    refused(replay(tmp_path, copy), "format 99", "aw-harness 9.9.9", "replays format 1")


def test_a_line_that_is_not_a_reply_names_its_line(copy: Path, tmp_path: Path) -> None:
    path = copy / "replay.jsonl"
    rows = lines(path)
    rows[1]["message"]["content"] = "not blocks"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    refix_manifest(copy, "replay.jsonl")
    refused(replay(tmp_path, copy), "replay.jsonl:2", "message.content")


def test_a_workflow_run_is_refused_with_the_reason(copy: Path, tmp_path: Path) -> None:
    path = copy / "session.jsonl"
    path.write_text(path.read_text().replace('"source": "prompt"', '"source": "workflow:plan"'))
    refix_manifest(copy, "session.jsonl")
    refused(replay(tmp_path, copy), "session.jsonl", "workflow:plan", "workflow")


@pytest.mark.parametrize(
    ("member", "reason"),
    [("../outside.txt", "leaves the archive"), ("/etc/abs.txt", "leaves the archive"), ("link", "symbolic link")],
)
def test_an_artifact_zip_no_upload_could_make_is_refused(
    recorded: Recorded, tmp_path: Path, member: str, reason: str
) -> None:
    archive = zip_directory(recorded.records, tmp_path / "artifact.zip").path
    with zipfile.ZipFile(archive, "a") as zf:
        info = zipfile.ZipInfo(member)
        if member == "link":
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
    refused(replay(tmp_path, archive), str(archive), member, reason)


def test_an_artifact_zip_cut_short_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    archive = zip_directory(recorded.records, tmp_path / "artifact.zip").path
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) // 2])
    refused(replay(tmp_path, archive), str(archive), "cut short or damaged")


def test_a_tampered_member_of_an_artifact_zip_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    spoilt = Path(shutil.copytree(recorded.records, tmp_path / "records"))
    path = spoilt / "session.jsonl"
    path.write_text(path.read_text().replace("one", "0ne", 1))
    archive = zip_directory(spoilt, tmp_path / "artifact.zip").path
    refused(replay(tmp_path, archive), f"{archive}/session.jsonl", "changed or cut short")


def test_a_recording_inside_the_workspace_is_refused(recorded: Recorded, tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "replay-ws")
    inside = Path(shutil.copytree(recorded.records, ws / "aw-run"))
    done = replay(tmp_path, inside, workspace=ws)
    refused(done, str(inside), "lies in the workspace", "move it out")
    assert not (ws / "a.txt").exists(), "nothing ran"


def test_a_workspace_inside_the_recording_is_refused(copy: Path, tmp_path: Path) -> None:
    ws = make_workspace(copy / "nested-ws")
    refused(replay(tmp_path, copy, workspace=ws), "--workspace", "lies in the recording")
    assert not (ws / "a.txt").exists(), "nothing ran"


def test_a_folder_of_two_recordings_asks_which(recorded: Recorded, tmp_path: Path) -> None:
    for name in ("job-a", "job-b"):
        shutil.copytree(recorded.records, tmp_path / "download" / name)
    refused(replay(tmp_path, tmp_path / "download"), "2 recordings", "job-a", "job-b")


def test_one_recording_one_level_down_is_found(recorded: Recorded, tmp_path: Path) -> None:
    shutil.copytree(recorded.records, tmp_path / "download" / "aw-harness-agent")
    done = replay(tmp_path, tmp_path / "download")
    assert done.run.returncode == 0 and done.run.result["replay"] == "same", done.run.stderr


def test_the_output_dir_may_not_be_the_recording(recorded: Recorded, tmp_path: Path) -> None:
    done = replay(tmp_path, recorded.records, "--output-dir", str(recorded.records))
    refused(done, "where the recording is")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--until", "9"), ("--until 9", "3 turns")),
        (("--until", "0"), ("--until 0",)),
        (("--continue",), ("--continue needs --model",)),
        (("--model", "claude-sonnet-4.6"), ("--model goes with --continue",)),
        (("--continue", "--model", "no-such-model-xyz"), ("no-such-model-xyz",)),
    ],
)
def test_arguments_that_do_not_fit_are_refused(
    recorded: Recorded, tmp_path: Path, args: tuple[str, ...], words: tuple[str, ...]
) -> None:
    refused(replay(tmp_path, recorded.records, *args), *words)


def test_continue_without_the_live_models_key_names_the_variable(recorded: Recorded, tmp_path: Path) -> None:
    done = replay(tmp_path, recorded.records, "--until", "2", "--continue", "--model", "claude-sonnet-4.6")
    refused(done, "ANTHROPIC_API_KEY", assembled=True)
