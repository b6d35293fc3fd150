"""Runs whose course the harness shapes, replayed the same: an answer corrected to match
``output-schema``, a budget stop, a run cancelled in the middle of a tool call; the model's
absolute paths into the recorded workspace; and what the step summary says of a run and of its
replay."""

from __future__ import annotations

import json
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.cli.test_stops import STOP_BOUND_S, finish
from tests.conftest import base_env, run_cli, write_run_files
from tests.replay.rig import PROMPT, lines, make_workspace, replay


def faux_turn(text: str, *calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"text": text, "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}


def started(proc: subprocess.Popen[str], tool: str, timeout: float = 30) -> list[str]:
    """stderr's lines up to the ``tool_start`` of ``tool`` (read on a thread: no hang)."""
    assert proc.stderr is not None
    stream, found = proc.stderr, threading.Event()
    seen: list[str] = []

    def read() -> None:
        for line in iter(stream.readline, ""):
            seen.append(line)
            if line.startswith("{") and json.loads(line).get("event") == "tool_start" and tool in line:
                found.set()
                return

    threading.Thread(target=read, daemon=True).start()
    if not found.wait(timeout):
        proc.kill()
        raise AssertionError(f"no {tool} call started: {''.join(seen)}")
    return seen


def record(tmp: Path, turns: list[dict[str, Any]], harness: dict[str, Any] | None = None, **env: str) -> Path:
    workspace = make_workspace(tmp / "ws")
    config = {"engine": {"id": "aw", "model": "faux/scripted"}, "harness": harness or {}}
    cfg, prompt = write_run_files(tmp, config, PROMPT, turns)
    run = run_cli(
        ["--config", str(cfg), "--prompt", str(prompt), "--format", "jsonl"], base_env(tmp, **env), cwd=workspace
    )
    assert run.returncode in (0, 1), run.stderr
    return tmp / "out"


def test_an_answer_corrected_to_match_the_output_schema_replays_the_same(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    turns = [
        faux_turn("Counting.", ("bash", {"command": "wc -l < notes.txt"})),
        faux_turn("one"),
        faux_turn('{"n": 1}'),
    ]
    records = record(tmp_path, turns, {"output-schema": schema})
    assert lines(records / "replay.jsonl")[-1] == {"type": "end", "stop_reason": "completed", "turns": 3, "requests": 3}
    done = replay(tmp_path, records)
    assert done.report["replay"] == "same", done.run.stderr
    assert done.report["run"]["structured_output"] == {"n": 1}


def test_a_budget_stop_replays_the_same(tmp_path: Path) -> None:
    turns = [faux_turn(f"Step {i}.", ("bash", {"command": f"echo {i} >> log.txt"})) for i in range(5)]
    records = record(tmp_path, turns, {"budget": {"max-turns": 2}})
    recorded = lines(records / "replay.jsonl")[-1]
    assert recorded["stop_reason"] != "completed" and recorded["turns"] == 2
    done = replay(tmp_path, records)
    assert done.report["replay"] == "same", done.run.stderr
    assert done.report["run"]["stop_reason"] == recorded["stop_reason"]
    assert (tmp_path / "replay-ws" / "log.txt").read_text() == "0\n1\n"


def test_a_run_cancelled_during_a_tool_call_replays_up_to_where_it_stopped(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "ws")
    turns = [
        faux_turn("Writing.", ("write", {"path": "a.txt", "content": "one\n"})),
        faux_turn("Waiting.", ("bash", {"command": "sleep 30"})),
    ]
    cfg, prompt = write_run_files(tmp_path, {"engine": {"id": "aw", "model": "faux/scripted"}}, PROMPT, turns)
    proc = subprocess.Popen(
        [sys.executable, "-m", "aw_action", "--config", str(cfg), "--prompt", str(prompt), "--format", "jsonl"],
        env=base_env(tmp_path),
        cwd=workspace,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = started(proc, "bash")
    proc.send_signal(signal.SIGTERM)
    code, result, _ = finish(proc, seen, STOP_BOUND_S)
    assert code == 1 and result["stop_reason"] == "cancelled"
    done = replay(tmp_path, tmp_path / "out")
    assert done.run.returncode == 0, done.run.stderr
    assert done.report["replay"] == "same" and "cancelled" in done.report["message"]
    assert (tmp_path / "replay-ws" / "a.txt").read_text() == "one\n"


def test_the_models_absolute_paths_follow_the_workspace(tmp_path: Path) -> None:
    recorded_ws = tmp_path / "ws"
    turns = [faux_turn("Where am I?", ("bash", {"command": f"pwd && cat {recorded_ws}/notes.txt"})), faux_turn("Done.")]
    records = record(tmp_path, turns)
    done = replay(tmp_path, records)
    assert done.report["replay"] == "same", done.run.stderr
    replayed = [e for e in lines(Path(done.report["output_dir"]) / "session.jsonl") if e.get("type") == "message"]
    [call] = [
        b for e in replayed for b in e["message"]["content"] if isinstance(b, dict) and b.get("type") == "toolCall"
    ]
    assert call["arguments"]["command"] == f"pwd && cat {tmp_path / 'replay-ws'}/notes.txt"


def test_a_github_runs_summary_gives_three_commands_that_replay_it(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    github = {"GITHUB_RUN_ID": "4242", "GITHUB_REPOSITORY": "octo/repo", "GITHUB_STEP_SUMMARY": str(summary)}
    record(tmp_path, [faux_turn("Reading.", ("bash", {"command": "cat notes.txt"})), faux_turn("Done.")], **github)
    text = summary.read_text()
    commit = lines(tmp_path / "out" / "replay.jsonl")[0]["workspace"]["commit"]
    assert "<details>\n<summary>Replay this run locally</summary>" in text
    assert "once the job has uploaded the run's output folder as an artifact" in text
    download, checkout, play = text.split("```sh\n")[1].split("```")[0].splitlines()
    assert download == "gh run download 4242 --repo octo/repo --dir /tmp/aw-run-4242"
    assert checkout == f"git checkout {commit}" and play == "aw-harness replay /tmp/aw-run-4242"
    folder = tmp_path / "download"  # what gh run download leaves: one folder per artifact
    shutil.copytree(tmp_path / "out", folder / "aw-harness-agent")
    clone = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(tmp_path / "ws"), str(clone)], check=True, capture_output=True)
    subprocess.run(shlex.split(checkout), cwd=clone, check=True, capture_output=True)
    args = shlex.split(play.replace("/tmp/aw-run-4242", str(folder)))
    assert args[0] == "aw-harness"
    env = base_env(tmp_path, AW_OUTPUT_DIR=str(tmp_path / "replay-out"))
    done = run_cli([*args[1:], "--format", "jsonl"], env, cwd=clone)
    assert done.returncode == 0 and done.result["replay"] == "same", done.stderr
    assert done.result["recording"]["commit"] == commit and done.result["run"]["tool_calls"] == 1


def test_a_replays_summary_gives_the_verdict_and_the_diff(tmp_path: Path) -> None:
    records = record(tmp_path, [faux_turn("Reading.", ("bash", {"command": "cat notes.txt"})), faux_turn("Done.")])
    ws = make_workspace(tmp_path / "changed")
    (ws / "notes.txt").write_text("```\n# not a heading\n")
    summary = tmp_path / "replay-summary.md"
    done = replay(tmp_path, records, workspace=ws, GITHUB_STEP_SUMMARY=str(summary))
    assert done.report["replay"] == "diverged"
    text = summary.read_text()
    assert text.startswith("## ❌ Failure · Diverged at turn 1, call 1\n") and "### The recorded run" in text
    assert "````diff\n" in text and "+# not a heading" in text, "the diff sits in a fence longer than its backticks"
    assert "Replay this run locally" not in text, "a replay is not itself offered for replay"
    assert json.loads(done.run.stdout)["divergence"]["turn"] == 1


def test_a_tool_output_holding_a_line_separator_replays_and_continues(tmp_path: Path) -> None:
    """The records are written with ``ensure_ascii=False``: U+2028 in a tool's output is a raw
    character inside a JSON string, at which ``str.splitlines()`` cut the record in two, and the
    run could be neither replayed nor continued ("not a JSON line"; found by review). Lines end
    at ``\\n`` only."""
    from aw_action.replay.continuation import read_continuation

    workspace = make_workspace(tmp_path / "ws")
    command = "printf 'a\\xe2\\x80\\xa8b\\xc2\\x85c\\n'"  # U+2028, U+0085
    turns = [{"text": "x", "tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "done"}]
    config, prompt = write_run_files(tmp_path, {"engine": {"id": "aw", "model": "faux/scripted"}}, "p", turns)
    recorded = run_cli(["--config", str(config), "--prompt", str(prompt)], base_env(tmp_path), cwd=workspace)
    assert recorded.returncode == 0, recorded.stderr[-2000:]
    assert "\u2028" in (tmp_path / "out" / "session.jsonl").read_text(encoding="utf-8")
    replayed = replay(tmp_path, tmp_path / "out")
    assert replayed.run.returncode == 0, replayed.run.stdout[-2000:] + replayed.run.stderr[-2000:]
    continued = read_continuation(tmp_path / "out", "--continue-from")
    texts = [json.dumps(message.model_dump(), ensure_ascii=False) for message in continued.messages]
    assert any("a\u2028b\u0085c" in text for text in texts)
