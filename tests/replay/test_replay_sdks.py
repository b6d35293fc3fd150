"""``aw-harness replay`` of runs recorded through both real SDKs against a local server, replayed
with no server answering and no key: from the folder and from the artifact zip, the same
workspace replays the same (exit 0, no request); a changed file stops it at its turn with the
diff (exit 1); ``--until`` leaves the workspace as the run had it then; ``--continue`` goes on
against a live local server from there; the recording is never written to and its redacted
values stay redacted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aw_action.github.archive import zip_directory
from tests.replay.rig import KEY, SDKS, Recorded, Sdk, digests, lines, make_workspace, record, replay
from tests.servers.wire import WireServer


@pytest.fixture(scope="module", params=SDKS, ids=lambda sdk: sdk.name)
def recorded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    sdk: Sdk = request.param
    return record(tmp_path_factory.mktemp(f"rec-{sdk.name}"), sdk)


def test_the_same_workspace_replays_the_same_with_no_request_and_no_key(recorded: Recorded, tmp_path: Path) -> None:
    before = digests(recorded.records)
    done = replay(tmp_path, recorded.records)
    assert done.run.returncode == 0, done.run.stderr
    report = done.report
    assert (report["replay"], report["exit_code"], report["divergence"]) == ("same", 0, None)
    assert report["recording"]["turns"] == 4 and report["run"]["turns"] == 4 and report["run"]["tool_calls"] == 3
    assert done.requests == 0, "a replay sends no model request"
    assert (tmp_path / "replay-ws" / "a.txt").read_text() == "one\ntwo\n", "the tool calls ran for real"
    assert digests(recorded.records) == before, "the recording is never written to"
    assert report["run"]["model"].startswith("replay/")


def test_a_replay_writes_its_own_records_marked_as_a_replay(recorded: Recorded, tmp_path: Path) -> None:
    done = replay(tmp_path, recorded.records)
    out = Path(done.report["output_dir"])
    assert out == tmp_path / "replay-out" and (out / "records.sha256").is_file()
    header = lines(out / "replay.jsonl")[0]
    recorded_header = lines(recorded.records / "replay.jsonl")[0]
    assert header["replay_of"]["session_id"] == recorded_header["session_id"] != header["session_id"]
    assert header["replay_of"]["records"] == str(recorded.records)


def test_the_artifact_zip_replays_the_same(recorded: Recorded, tmp_path: Path) -> None:
    archive = zip_directory(recorded.records, tmp_path / "artifact.zip")
    done = replay(tmp_path, archive.path)
    assert done.run.returncode == 0, done.run.stderr
    assert done.report["replay"] == "same" and done.requests == 0


def test_a_changed_file_stops_the_replay_at_its_turn_with_the_diff(recorded: Recorded, tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "changed")
    (ws / "notes.txt").write_text("beta\n")
    done = replay(tmp_path, recorded.records, workspace=ws)
    assert done.run.returncode == 1, done.run.stderr
    divergence = done.report["divergence"]
    assert done.report["replay"] == "diverged" and divergence["turn"] == 3 and divergence["tool"] == "bash"
    assert "-alpha" in divergence["diff"] and "+beta" in divergence["diff"]
    assert "cat a.txt notes.txt" in divergence["arguments"]["command"]
    assert "turn 3" in done.run.stderr and "+beta" in done.run.stderr
    assert done.report["run"]["stop_reason"] == "diverged" and done.report["run"]["turns"] == 2


def test_until_leaves_the_workspace_as_the_run_had_it_before_that_turn(recorded: Recorded, tmp_path: Path) -> None:
    done = replay(tmp_path, recorded.records, "--until", "3")
    assert done.run.returncode == 0, done.run.stderr
    assert done.report["replay"] == "paused" and done.report["run"]["turns"] == 2
    assert (tmp_path / "replay-ws" / "a.txt").read_text() == "one\ntwo\n"
    earlier = replay(tmp_path / "two", recorded.records, "--until", "2")
    assert earlier.report["replay"] == "paused" and (tmp_path / "two" / "replay-ws" / "a.txt").read_text() == "one\n"
    first = replay(tmp_path / "one", recorded.records, "--until", "1")
    assert first.report["replay"] == "paused" and not (tmp_path / "one" / "replay-ws" / "a.txt").exists()
    assert done.requests == earlier.requests == first.requests == 0


def test_continue_goes_on_live_from_the_turn(recorded: Recorded, tmp_path: Path) -> None:
    sdk = recorded.sdk
    ws = make_workspace(tmp_path / "live-ws")
    with WireServer() as server:
        server.script(sdk.reply("Live now: done differently.", []))
        env_extra = sdk.env(server.url)
        done = replay(
            tmp_path, recorded.records, "--until", "3", "--continue", "--model", sdk.model, workspace=ws, **env_extra
        )
        received = list(server.requests)
    assert done.run.returncode == 0, done.run.stderr
    assert done.report["replay"] == "live" and done.report["run"]["final_message"] == "Live now: done differently."
    [request] = received
    sent = json.dumps(request.json)
    assert "one\\ntwo" in sent, "the live model sees the replayed turns' results"
    assert "cat a.txt notes.txt" not in sent, "turn 3 was not replayed: the live model answered it"
    assert (ws / "a.txt").read_text() == "one\ntwo\n"


def test_redacted_values_stay_redacted_and_a_replay_needs_no_secret(recorded: Recorded, tmp_path: Path) -> None:
    transcript = (recorded.records / "session.jsonl").read_text()
    assert KEY not in transcript and KEY not in (recorded.records / "replay.jsonl").read_text()
    assert "***" in transcript
    done = replay(tmp_path, recorded.records)
    assert done.report["replay"] == "same", done.run.stderr
    out = Path(done.report["output_dir"])
    for path in out.rglob("*"):
        assert KEY not in path.read_text(errors="replace"), path
    assert "***" in (out / "session.jsonl").read_text()
    assert KEY not in done.run.stdout + done.run.stderr
