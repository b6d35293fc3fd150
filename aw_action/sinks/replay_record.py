"""``replay.jsonl``: what ``aw-harness replay`` needs that the transcript does not hold
(docs/replay.md; the lines are ``replay_format``'s).

- at ``session_start`` the header: the recording format and the harness version, the model and
  the config as the run resolved them, the workspace and its starting commit, the GitHub run,
  and what varies from one run to the next (the workspace, output dir and temp dir paths, the
  session and run ids; the patterns of ``replay_format.VARYING_PATTERNS``);
- at each model switch (the session's ``model_change`` record) a ``model_change`` line;
- at each ``request_end`` the reply, unless the request was aborted (an aborted request has no
  answer to play back), with its place: request index, turn, prompt, purpose;
- at the end the ``end`` line (stop reason, turns, requests): a recording without it was cut off.

Every line passes through the redactor, like every record: a replay never needs a recorded
secret. In a GitHub run that a replay can drive (not gh-aw mode, not a workflow's steps, not
itself a replay) the step summary gets a collapsed block with the three commands that replay it
locally (``replay_hint``); in the action only once its artifact was uploaded.
"""

from __future__ import annotations

import importlib.metadata
import shlex
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from aw_action.agent.events import AgentEvent, HarnessEvent, MessageEnd, RequestEnd
from aw_action.ai.types import UserMessage
from aw_action.environment.runner import RunnerFacts
from aw_action.run import record_table
from aw_action.run.record import ReplayCommands
from aw_action.security.confinement.git_head import head_commit
from aw_action.sinks.record_writer import JsonlRecordWriter, SessionInfo, WriterContext
from aw_action.sinks.replay_format import (
    FORMAT,
    REPLAYED_SOURCES,
    VARYING_PATTERNS,
    End,
    Header,
    ModelSwitch,
    RecordedModel,
    RecordedRun,
    RecordedWorkspace,
    ReplayOf,
    Reply,
    varying,
)

if TYPE_CHECKING:
    from aw_action.run.result import RunResult

FILE_NAME = record_table.REPLAY.name


def harness_version() -> str:
    """The installed aw-harness's version (``unknown`` from an uninstalled source tree)."""
    try:
        return importlib.metadata.version("aw-harness")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def recorded_run(runner: RunnerFacts) -> RecordedRun:
    return RecordedRun(
        repository=runner.repository or None,
        run_id=runner.run_id or None,
        run_attempt=runner.run_attempt or None,
        sha=runner.sha or None,
        server_url=runner.server_url or None,
        workflow=runner.workflow or None,
        job=runner.job or None,
    )


def config_dir_of(config_dir: Path | None, workspace: Path) -> str:
    """The config's folder, relative to the workspace when inside it."""
    if config_dir is None:
        return "."
    try:
        return config_dir.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        return str(config_dir)


def replay_hint(commands: ReplayCommands, artifact: str | None) -> str:
    """The step summary's collapsed block that replays the run locally: its artifact downloaded
    (outside the checkout, which the replayed commands change and a replay refuses to read a
    recording from) and replayed in the checkout, in three commands. ``artifact``: the name it
    was uploaded under (the action says it only once the upload is done); None on the command
    line, where a later step of the job may upload the output folder."""
    # when used, not at start (tests/cli/test_first_request_imports.py)
    from aw_action.sinks.markdown import code_block
    from aw_action.sinks.summary_details import details

    folder = f"/tmp/aw-run-{commands.run_id}"
    name = f" --name {shlex.quote(artifact)}" if artifact else ""
    checkout = commands.commit or "<the run's commit>"
    shell = "\n".join(
        [
            f"gh run download {commands.run_id} --repo {commands.repository}{name} --dir {folder}",
            f"git checkout {checkout}",
            f"aw-harness replay {folder}",
        ]
    )
    when = "" if artifact else " once the job has uploaded the run's output folder as an artifact"
    body = "\n\n".join(
        [
            "The artifact holds every model reply; `aw-harness replay` runs the tool calls again on your "
            f"machine and stops at the first result that differs, with no model and no key{when}:",
            code_block(shell, "sh"),
            "`--until TURN` stops before a turn and leaves the workspace as the run had it then; "
            "`--continue --model MODEL` goes on live from there (aw-harness's docs/replay.md).",
        ]
    )
    return details("Replay this run locally", body)


class ReplayRecord(JsonlRecordWriter):
    row = record_table.REPLAY
    subsystem = "replay-record"

    def __init__(self, ctx: WriterContext) -> None:
        super().__init__(ctx)
        self.replies = 0
        self.header: Header | None = None
        self.gh_aw = False
        self.replayable = True
        """False once a prompt came from where a replay cannot send it from (a workflow's step)."""

    def start(self, session: SessionInfo) -> None:
        workspace = Path(session.workspace)
        asked, self.state.record.workspace_commit = self.state.record.workspace_commit, None
        commit = asked.answer() if asked is not None else head_commit(workspace)
        self.gh_aw = session.runner_facts.gh_aw
        run = recorded_run(session.runner_facts)
        origin = self.state.record.replay_of
        self.header = Header(
            format=FORMAT,
            harness=harness_version(),
            session_id=session.session_id,
            model=RecordedModel(**asdict(session.model)),
            config=session.config.model_dump(mode="json", by_alias=True),
            config_dir=config_dir_of(session.config_dir, workspace),
            workspace=RecordedWorkspace(path=session.workspace, commit=commit),
            run=run,
            varies=varying(session.workspace, str(self.ctx.output_dir), session.tmpdir, session.session_id, run.run_id),
            patterns=list(VARYING_PATTERNS),
            replay_of=ReplayOf.model_validate(origin) if origin is not None else None,
            continues=dict(self.state.record.continues) if self.state.record.continues is not None else None,
        )
        self.file.write(self.header.model_dump(mode="json"))

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, MessageEnd) and isinstance(event.message, UserMessage):
            self.replayable = self.replayable and event.message.source in REPLAYED_SOURCES
        if isinstance(event, HarnessEvent) and event.name == "model_change":
            fields = event.fields
            switch = ModelSwitch(turn=self.state.ledger.next_turn, from_model=fields["from"], to_model=fields["to"])
            self.file.write(switch.model_dump(mode="json"))
        if not isinstance(event, RequestEnd) or event.message.stop_reason == "aborted":
            return
        self.replies += 1
        reply = Reply(
            index=self.replies,
            turn=self.state.ledger.next_turn,
            prompt=max(self.state.record.current_prompt, 1),
            purpose=event.purpose,
            message=event.message,
        )
        self.file.write(reply.model_dump(mode="json"))

    def finish(self, result: RunResult) -> None:
        end = End(stop_reason=result.stop_reason, turns=len(self.state.ledger.turns), requests=self.replies)
        self.file.write(end.model_dump(mode="json"))
        super().finish(result)
        header = self.header
        if header is None or header.replay_of is not None or header.continues is not None:
            return  # a replay, or a run that began with an earlier conversation: no replay hint
        if self.gh_aw or not self.replayable:
            return
        run = header.run
        if run.run_id and run.repository:
            self.state.record.replay_commands = ReplayCommands(run.run_id, run.repository, header.workspace.commit)
