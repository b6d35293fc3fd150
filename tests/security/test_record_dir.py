"""A renamed or replaced output dir cannot redirect a write of the harness (issue 19, part 4).

The agent cannot write the output dir, but it may own the folder around it (a workspace it was
lent, ``$RUNNER_TEMP``). Mid-run it renames the output dir away and puts in its place a folder of
its own, or a link to one, whose entries are links to a file only root may write. The harness's
later writes must land in the original dir (or fail), and nothing may reach the victim or the
agent's folder. The swap is made by the tools' user: by a subprocess between two writes of the
real writers, and by the agent's own bash tool call in a real CLI run.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from aw_action.agent.transcript import Transcript
from aw_action.run.redact import Redactor
from aw_action.safe_outputs.config import CONFIG_FILE, parse_safe_outputs, write_config_file
from aw_action.safe_outputs.records import RecordLog, read_records
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.records.record_guard import RecordLedger, open_record, protect_output_dir
from aw_action.security.records.record_manifest import MANIFEST_FILE, write_manifest
from aw_action.sinks.files import JsonlFile
from aw_action.structured.final_answer import write_structured_output
from aw_action.tools.bash_output import CommandOutput
from aw_action.workflows import make_checkpoint, start_run, write_checkpoint
from tests.action.test_artifact_upload import TOKEN
from tests.action.test_artifact_upload import _run as _upload_run
from tests.conftest import base_env, run_cli, write_run_files
from tests.github.artifact_server import ArtifactServer
from tests.workflows.support import fix_workflow

RECORD_NAMES = (
    "token-usage.jsonl",
    "context-provenance.jsonl",
    "session.jsonl",
    "workflow-checkpoint.json",
    "structured-output.json",
    "safe-outputs.jsonl",
    CONFIG_FILE,
    MANIFEST_FILE,
)
PRECIOUS = b"root's file: nothing may write here\n"


def _swap_script(how: str, victim: Path) -> str:
    """The agent's move: the output dir renamed away, and in its place a folder of its own
    (``folder``) or a link to one (``link``), every record name in it a link to ``victim``."""
    links = " ".join(f'ln -s "{victim}" "$EVIL/{name}";' for name in RECORD_NAMES)
    place = (
        'mkdir "$OUT"; for f in "$EVIL"/*; do ln -s "$f" "$OUT/"; done' if how == "folder" else 'ln -s "$EVIL" "$OUT"'
    )
    return f'set -e; mv "$OUT" "$OUT.old"; mkdir "$EVIL"; {links} {place}'


def _as(user: ToolIdentity, script: str, **env: str) -> None:
    subprocess.run(
        ["bash", "-c", script],
        env={"PATH": "/usr/bin:/bin", **env},
        user=user.uid,
        group=user.gid,
        extra_groups=[],
        check=True,
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize("how", ["link", "folder"])
def test_writes_after_the_agent_swaps_the_output_dir_land_in_the_original(
    tmp_path: Path, user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity, how: str
) -> None:
    victim = shared_tmp / "victim"
    victim.write_bytes(PRECIOUS)
    out, evil = user_dir / "out", user_dir / "evil"
    protect_output_dir(out)
    ledger = RecordLedger(out)  # held from here on, before any tool runs
    usage = JsonlFile(out / "token-usage.jsonl", Redactor(), ledger)
    usage.write({"turn": 1})

    _as(tool_user, _swap_script(how, victim), OUT=str(out), EVIL=str(evil))
    assert (out / "token-usage.jsonl").resolve() == victim, "the swap is in place"

    usage.write({"turn": 2})
    provenance = JsonlFile(out / "context-provenance.jsonl", Redactor(), ledger)
    provenance.write({"source": "prompt"})
    transcript = Transcript(out / "session.jsonl", session_id="s1", cwd="/ws", model="m", records=ledger)
    transcript.append("message", text="after the swap")
    wf = fix_workflow(tmp_path / "wf")
    write_checkpoint(out / "workflow-checkpoint.json", make_checkpoint(wf, start_run(wf, "r", "in")), records=ledger)
    write_structured_output(out, {"verdict": "ok"}, ledger)
    write_config_file(out, parse_safe_outputs({"noop": None}), ledger)
    log = RecordLog(out, ledger)
    with log.locked():
        log.append({"type": "noop", "message": "done"})
    spill = CommandOutput(out, max_bytes=16, records=ledger)
    spill.feed(b"x" * 100)
    spill.finish()
    spill.rewrite_log(lambda source, target: target.write(source.read().upper()))
    write_manifest(ledger)

    assert victim.read_bytes() == PRECIOUS, "nothing reached root's file through the links"
    assert sorted(os.listdir(evil)) == sorted(RECORD_NAMES), "nothing was added to the agent's folder"
    original = out.parent / "out.old"
    kept = set(os.listdir(original))
    assert kept >= set(RECORD_NAMES) and spill.path is not None and spill.path.name in kept
    lines = [json.loads(line) for line in (original / "token-usage.jsonl").read_text().splitlines()]
    assert lines == [{"turn": 1}, {"turn": 2}]
    assert read_records(original / "safe-outputs.jsonl")[0].record == {"type": "noop", "message": "done"}
    assert (original / spill.path.name).read_text() == "X" * 100
    manifest = (original / MANIFEST_FILE).read_text()
    assert "  workflow-checkpoint.json\n" in manifest and "  token-usage.jsonl\n" in manifest
    assert [t.what for t in ledger.verify()] == ["dir-replaced"], "the records are intact where they were written"


def test_a_link_planted_under_a_record_s_name_is_refused_not_followed(tmp_path: Path) -> None:
    """Tools as the harness's own user can plant links in the dir itself: a writer meets an
    error (the run degrades), it never writes through."""
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_bytes(PRECIOUS)
    ledger = RecordLedger(out)
    (out / "token-usage.jsonl").symlink_to(victim)
    with pytest.raises(OSError):
        JsonlFile(out / "token-usage.jsonl", Redactor(), ledger).write({"turn": 1})
    (out / "sub").symlink_to(tmp_path)
    with pytest.raises(OSError):
        open_record(out / "sub" / "victim", os.O_WRONLY, ledger)
    assert victim.read_bytes() == PRECIOUS


def test_an_agent_that_swaps_the_output_dir_in_a_run_writes_nothing_through_its_links(
    tmp_path: Path, user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity
) -> None:
    """A real CLI run as root: the workspace is the tools' user's, so bash runs as that user;
    its first command swaps the output dir for a link to a folder of links to root's file, then
    the run goes on for two more turns and ends (records, closing records, the manifest)."""
    victim = shared_tmp / "victim"
    victim.write_bytes(PRECIOUS)
    workspace = user_dir / "ws"
    workspace.mkdir()
    os.chown(workspace, tool_user.uid, tool_user.gid)
    out, evil = user_dir / "out", user_dir / "evil"
    swap = f'OUT="$AW_OUTPUT_DIR"; EVIL="{evil}"; ' + _swap_script("link", victim)
    script = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": swap}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo second turn"}}]},
        {"text": "Done."},
    ]
    cfg, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=script)
    env = base_env(tmp_path, GITHUB_WORKSPACE=str(workspace), AW_OUTPUT_DIR=str(out), PATH="/usr/bin:/bin")
    run = run_cli(["--config", str(cfg), "--prompt", str(prompt)], env, cwd=workspace)
    assert run.returncode == 0, run.stderr[-3000:]
    assert out.is_symlink() and (out / "session.jsonl").resolve() == victim, "the agent's swap happened"
    assert victim.read_bytes() == PRECIOUS
    assert sorted(os.listdir(evil)) == sorted(RECORD_NAMES)
    original = out.parent / f"{out.name}.old"
    for name in ("session.jsonl", "token-usage.jsonl", "aw_session.jsonl", MANIFEST_FILE):
        assert (original / name).stat().st_uid == 0, name
    transcript = (original / "session.jsonl").read_text()
    assert "second turn" in transcript and "Done." in transcript, "the transcript went on in the original"
    closing = [json.loads(line) for line in (original / "aw_session.jsonl").read_text().splitlines()]
    assert closing[-1]["type"] == "session.collection", "the last record, written at the end, is in the original"
    assert f"  {'session.jsonl'}\n" in (original / MANIFEST_FILE).read_text()
    (end,) = run.events_named("session_end")
    assert end["degraded"] == ["records"]
    warning = next(e["message"] for e in run.warnings if e["message"].startswith("records tampered with"))
    assert "dir-replaced" in warning and "session.jsonl" not in warning, "only the path moved; no record changed"


def test_a_symlinked_output_dir_is_refused_with_exit_2(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "out").symlink_to(real)
    cfg, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=[{"text": "hi"}])
    run = run_cli(["--config", str(cfg), "--prompt", str(prompt)], base_env(tmp_path))
    assert run.returncode == 2
    assert run.result["error"] == f"output dir {tmp_path / 'out'}: is a symbolic link; name the folder itself"
    assert os.listdir(real) == []


def test_the_artifact_holds_the_records_the_run_wrote_not_the_agent_s_replacement(tmp_path: Path) -> None:
    """The action's upload reads the folder the run held: an agent that renamed the output dir
    away and left forged records in a new one at its path gets its forgery nowhere."""
    forge = (
        'mv "$AW_OUTPUT_DIR" "$AW_OUTPUT_DIR.old" && mkdir "$AW_OUTPUT_DIR" && '
        'echo \'{"forged": true}\' > "$AW_OUTPUT_DIR/session.jsonl"'
    )
    with ArtifactServer(TOKEN) as server:
        run = _upload_run(
            tmp_path,
            server,
            [{"tool_calls": [{"name": "bash", "arguments": {"command": forge}}]}, {"text": "done"}],
        )
        archive = zipfile.ZipFile(io.BytesIO(server.uploaded()))
    assert run.returncode == 0, run.stdout
    transcript = archive.read("session.jsonl").decode()
    assert '"forged"' not in transcript and '"type": "session"' in transcript.splitlines()[0]
    assert "done" in transcript and "records.sha256" in archive.namelist()
    assert "dir-replaced" in run.stdout
