"""A set of real runs of every ending, made once per test session by the CLI on the scripted
provider, each left as an artifact folder in one downloads folder (as ``actions/download-artifact``
without ``name:`` leaves them): success, a budget stop (max turns, effective tokens), a timeout,
a cancel, a provider error whose message is hostile Markdown, an invalid input (the CLI's records
nothing; the action's leaves ``result.json``), and artifacts made from them: zipped, tampered,
merged, older-format, damaged."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.action.launch import run_action
from tests.cli.test_stops import SLOW_TOOL, finish, wait_for_event
from tests.conftest import base_env, run_cli, write_run_files

ANSWER = [
    {"text": "Listing.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo one"}}]},
    {"text": "Done."},
]
LONG = [{"text": f"Step {i}.", "tool_calls": [{"name": "bash", "arguments": {"command": "true"}}]} for i in range(6)]
HOSTILE = "<img src=x onerror=alert(1)> **bold** | pipe [link](https://evil.example) `tick`\nnext line"


@dataclass(frozen=True)
class Made:
    """One run: its artifact's name, the CLI's result object (None for a run that wrote none)."""

    name: str
    result: dict[str, Any] | None


def _config(extra: dict[str, Any]) -> dict[str, Any]:
    return {"engine": {"model": "faux/scripted"}, **extra}


def cli_run(work: Path, artifact: Path, script: list[dict[str, Any]] | None, extra: dict[str, Any]) -> dict[str, Any]:
    work.mkdir(parents=True)
    config, prompt = write_run_files(work, _config(extra), "Do it.", script)
    run = run_cli(["--config", str(config), "--prompt", str(prompt)], base_env(work, AW_OUTPUT_DIR=str(artifact)))
    return run.result


def cancelled_run(work: Path, artifact: Path) -> dict[str, Any]:
    work.mkdir(parents=True)
    config, prompt = write_run_files(work, _config({}), "Do it.", SLOW_TOOL)
    env = base_env(work, AW_OUTPUT_DIR=str(artifact))
    proc = subprocess.Popen(
        [sys.executable, "-m", "aw_action", "--config", str(config), "--prompt", str(prompt)],
        env=env,
        cwd=env["GITHUB_WORKSPACE"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = wait_for_event(proc, "tool_start")
    proc.send_signal(signal.SIGTERM)
    _code, result, _took = finish(proc, seen, 10)
    return result


def invalid_action_run(tmp: Path, downloads: Path) -> dict[str, Any]:
    """The action's entrypoint with an input it refuses: the run cannot start, and its artifact
    holds only ``result.json``."""
    out = downloads / "aw-harness-invalid-input"
    inputs = {"model": "faux/scripted", "prompt": "Do it.", "max-turns": "abc", "upload-artifacts": "false"}
    run = run_action(tmp, {**inputs, "output-dir": str(out)})
    assert run.returncode == 2, run.stdout[-2000:]
    value: dict[str, Any] = json.loads((out / "result.json").read_text())
    return value


def reseal(folder: Path) -> None:
    """Write ``records.sha256`` again for what the folder now holds (a consistent artifact)."""
    names = [line.split("  ", 1)[1] for line in (folder / "records.sha256").read_text().splitlines()]
    lines = [f"{hashlib.sha256((folder / n).read_bytes()).hexdigest()}  {n}\n" for n in names]
    (folder / "records.sha256").write_text("".join(lines))


def set_run_figures(folder: Path, **figures: Any) -> None:
    """Change ``harness.run``'s figures in the folder's unified session, and reseal it."""
    path = folder / "aw_session.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        if record["type"] == "harness.run":
            record["data"].update(figures)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    reseal(folder)


def zip_folder(folder: Path, archive: Path) -> None:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            zf.write(path, path.relative_to(folder).as_posix())


def make_runs(root: Path) -> tuple[Path, list[Made]]:
    """The downloads folder and the runs in it, in the order they were made."""
    downloads, work = root / "downloads", root / "work"
    made: list[Made] = []

    def cli(name: str, script: list[dict[str, Any]], extra: dict[str, Any]) -> None:
        made.append(Made(name, cli_run(work / name, downloads / name, script, extra)))

    cli("aw-harness-success", ANSWER, {})
    cli("aw-harness-max-turns", LONG, {"harness": {"budget": {"max-turns": 2}}})
    heavy = [{**turn, "usage": {"input": 4000, "output": 100}} for turn in LONG]
    cli("aw-harness-budget", heavy, {"harness": {"budget": {"max-effective-tokens": 6000}}})
    cli("aw-harness-timeout", SLOW_TOOL, {"timeout-minutes": 0.05})
    cli("aw-harness-error", [{"error": {"message": HOSTILE, "kind": "fatal"}}], {})
    made.append(Made("aw-harness-cancelled", cancelled_run(work / "cancelled", downloads / "aw-harness-cancelled")))
    invalid = cli_run(work / "invalid", downloads / "aw-harness-invalid", None, {"harness": {"faux-script": "/nope"}})
    (downloads / "aw-harness-invalid").mkdir(exist_ok=True)  # the run could not start: it recorded nothing
    made.append(Made("aw-harness-invalid", invalid))
    made.append(Made("aw-harness-invalid-input", invalid_action_run(root / "action", downloads)))

    zipped = root / "zipped"
    shutil.copytree(downloads / "aw-harness-success", zipped)
    set_run_figures(zipped, costUsd=0.0125)
    zip_folder(zipped, downloads / "aw-harness-priced.zip")
    made.append(Made("aw-harness-priced.zip", {**made[0].result, "cost_usd": 0.0125}))  # type: ignore[dict-item]

    tampered = downloads / "aw-harness-tampered"
    shutil.copytree(downloads / "aw-harness-success", tampered)
    with (tampered / "session.jsonl").open("a") as fh:
        fh.write('{"type": "message", "message": {"role": "user", "content": "added later"}}\n')
    older = downloads / "aw-harness-older"
    shutil.copytree(downloads / "aw-harness-success", older)
    (older / "records.sha256").unlink()
    merged = downloads / "merged"
    shutil.copytree(downloads / "aw-harness-success", merged)
    for name in ("aw_session.jsonl", "token-usage.jsonl", "records.sha256"):
        shutil.copy(downloads / "aw-harness-max-turns" / name, merged / name)
    (downloads / "aw-harness-damaged.zip").write_bytes((downloads / "aw-harness-priced.zip").read_bytes()[:300])
    return downloads, made
