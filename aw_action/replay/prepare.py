"""From what a person (``aw-harness replay``) or a workflow (``mode: replay``) names to what a
replay needs: the recording, read and checked; the workspace; the replay's own output folder,
never where the recording is; the turn to stop before; the live model of ``--continue``.

Every refusal is an ``InvocationError`` (exit 2) naming the argument or the file.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from pathlib import Path

from aw_action.ai.types import Model
from aw_action.config import ConfigSources, Override, resolve_config
from aw_action.config.resolve import MODEL_PATH
from aw_action.environment.runner import RunnerFacts
from aw_action.environment.tuning import OUTPUT_DIR
from aw_action.exits import InvocationError
from aw_action.replay.recording import Recording, load_recording
from aw_action.replay.runner import CONFIG_NAME, ReplayOptions

OUTPUT_ENV = OUTPUT_DIR.name


def default_output_dir(recording: Recording, runner: RunnerFacts) -> Path:
    """``AW_OUTPUT_DIR`` when set, else a folder of the system's temp dir named for the recording
    (outside the workspace, where a replayed ``ls`` or ``git status`` would see it), named with
    ``folder_name``."""
    named = runner.output_dir_named
    if named:
        return Path(named)
    return Path(tempfile.gettempdir()) / "aw-replay" / folder_name(recording.header.session_id)


def folder_name(session_id: str) -> str:
    """The recorded session id as one plain folder name: what a recording says can never name
    another folder (``..``, a ``/``, a leading dot)."""
    plain = re.sub(r"[^A-Za-z0-9_-]", "_", session_id[:36])
    return plain if plain.strip("_") else "session"


def check_apart(output_dir: Path, records: Path, workspace: Path) -> None:
    """The replay writes nothing into the recording, nor into the workspace's own folder; the
    recording lies outside the workspace, where the replayed tools (which may write the workspace)
    cannot reach it."""
    out, source = output_dir.resolve(), records.resolve()
    if out == source or out.is_relative_to(source):
        raise InvocationError(
            f"output dir {output_dir}: is where the recording is ({records}); a replay writes its records elsewhere"
        )
    if out == workspace.resolve():
        raise InvocationError(f"output dir {output_dir}: is the workspace; name another folder with --output-dir")
    ws = workspace.resolve()
    if source == ws or source.is_relative_to(ws):
        raise InvocationError(
            f"{records}: lies in the workspace ({workspace}), where the replayed commands may change it and a "
            "replayed ls or git status would see it: move it out of the workspace (gh run download --dir /tmp/aw-run)"
        )
    if ws.is_relative_to(source):
        raise InvocationError(
            f"--workspace {workspace}: lies in the recording ({records}); a replay writes nothing there"
        )


def live_model(name: str, env: Mapping[str, str], workspace: Path) -> Model:
    """``--model`` resolved the one way every entry point resolves a model (``config/resolve``)."""
    sources = ConfigSources(workspace / CONFIG_NAME, file=False, overrides=(Override(MODEL_PATH, name, "--model"),))
    return resolve_config(sources, env).model


def prepare(
    records: Path,
    *,
    workspace: Path,
    env: Mapping[str, str],
    runner: RunnerFacts | None = None,
    output_dir: Path | None = None,
    until: int | None = None,
    model: str | None = None,
    go_on: bool = False,
) -> tuple[Recording, ReplayOptions]:
    """The recording and the replay's options; ``InvocationError`` for what cannot be used.
    ``runner``: the entry point's record of the runner's facts (read from ``env`` when not given)."""
    if go_on and not model:
        raise InvocationError("--continue needs --model MODEL: the live model that goes on from there")
    if model and not go_on:
        raise InvocationError("--model goes with --continue (a replay alone asks no model)")
    if not workspace.is_dir():
        raise InvocationError(f"--workspace {workspace}: not a folder")
    recording = load_recording(records)
    if until is not None and not 1 <= until <= recording.turns + 1:
        raise InvocationError(
            f"--until {until}: the recording has {recording.turns} turns (give 1 to {recording.turns + 1})"
        )
    out = output_dir or default_output_dir(recording, runner or RunnerFacts.read(env))
    check_apart(out, records, workspace)
    live = live_model(model, env, workspace) if model else None
    return recording, ReplayOptions(workspace.resolve(), out, until, live)
