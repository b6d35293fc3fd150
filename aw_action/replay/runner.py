"""A replay invocation: the recorded run again, its model replaced by its recording.

``ReplayHarness`` is a ``Harness`` whose config is the recorded one (as its run resolved it)
and whose model is the recorded model served by the replay provider (``replay/<id>``, priced
as the recorded model), so budgets, steering, the tools' policies and sandbox, and the records
are what the recorded run had, within the limits a replay puts on what a recording names
(``confine.py``: the tools at most in ``workspace-write``, nothing read or imported from outside
the workspace; on an untrusted ref, ``ReplayOptions.pin``: extension and ``output-schema`` files
from the base commit only, as a live run on that ref). What a replay must not repeat is left out: the imports (the
recorded prompt holds them), the OTLP export and the progress comment. It sends the recorded
prompt as it was sent, holds the answer to ``output-schema`` as the recorded run did, then judges
the replay (``verdict.py``) and puts the verdict in the step summary before the run's records
close. Its records go to its own output folder (``AW_OUTPUT_DIR``) and are marked as a replay
of the recorded run.

``replay_env`` is what the replay runs with: no credential at all (a replay needs none, and the
replayed commands get none, whatever the recorded run granted), but the live model's own with
``--continue``; the workspace and the output folder as given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO

from aw_action.ai.credentials import is_credential_name, provider_variables
from aw_action.ai.replay import API
from aw_action.ai.types import Model
from aw_action.config import ConfigError, ResolvedConfig
from aw_action.config.document import validate
from aw_action.extensions.loader import ExtensionSpec
from aw_action.harness.context import RunContext
from aw_action.harness.invocation import Harness
from aw_action.harness.output_schema import enforce_output_schema
from aw_action.lazy_dataclass import dataclass
from aw_action.replay.confine import check_kernel, confine
from aw_action.replay.recording import Recording
from aw_action.replay.source import RecordingError
from aw_action.replay.verdict import Verdict, judge
from aw_action.replay.watch import ReplayPlan, ReplayWatch
from aw_action.run.config import HarnessSettings, Observability, RunConfig
from aw_action.run.mode import MODE_ENV
from aw_action.run.prompt_files import ResolvedImport
from aw_action.run.record import ReplayVerdict
from aw_action.sinks.markdown import code
from aw_action.sinks.replay_format import RecordedModel
from aw_action.sinks.summary_story import describe

CONFIG_NAME = "aw-harness.replay.json"
"""Stands in for config.json in the recorded config's folder: relative paths resolve from there."""


@dataclass(frozen=True)
class ReplayOptions:
    workspace: Path
    output_dir: Path
    until: int | None = None
    live: Model | None = None
    pin: Callable[[RunConfig, Path], RunConfig] | None = None
    """On an untrusted ref (a fork's pull request): the config with its path extensions and
    ``output-schema`` taken from the base commit (``github/fork_files.ForkFiles.pin``), as a live
    run on that ref takes them; a file the base lacks is refused (exit 2)."""


def replay_model(recorded: RecordedModel) -> Model:
    """The recorded model, served by the replay provider and priced as the recorded one."""
    return Model(
        id=recorded.id,
        provider=API,
        api=API,
        context_window=recorded.context_window,
        max_output_tokens=recorded.max_output_tokens,
        reasoning=recorded.reasoning,
        price_ref=recorded.price_ref or recorded.id,
        price_provider=recorded.price_provider or recorded.provider,
    )


def replay_config(
    recording: Recording, workspace: Path, pin: Callable[[RunConfig, Path], RunConfig] | None = None
) -> ResolvedConfig:
    """The recorded config as the replay runs it (see the module docstring); ``pin`` as
    ``ReplayOptions.pin``."""
    header = recording.header
    try:
        config = validate(header.config, f"{recording.where}: the recorded config")
    except ConfigError as exc:
        raise RecordingError(str(exc)) from None
    config, folder = confine(config, header.config_dir, workspace, recording.where)
    if pin is not None:
        config = pin(config, folder)
    settings: HarnessSettings = config.harness.model_copy(update={"progress_comment": False})
    config = config.model_copy(update={"imports": [], "observability": Observability(), "harness": settings})
    return ResolvedConfig(config, replay_model(header.model), folder / CONFIG_NAME)


def replay_env(env: Mapping[str, str], options: ReplayOptions) -> dict[str, str]:
    keep = set(provider_variables(options.live.provider)) if options.live is not None else set()
    out = {k: v for k, v in env.items() if (k in keep or not is_credential_name(k)) and k != MODE_ENV}
    out.update(AW_OUTPUT_DIR=str(options.output_dir), GITHUB_WORKSPACE=str(options.workspace))
    return out


class ReplayHarness(Harness):
    def __init__(
        self,
        recording: Recording,
        options: ReplayOptions,
        env: Mapping[str, str],
        *,
        stderr: IO[str] | None = None,
        readable: bool = False,
    ) -> None:
        check_kernel(env)
        resolved = replay_config(recording, options.workspace, options.pin)
        super().__init__(resolved, resolved.path, replay_env(env, options), stderr=stderr, readable=readable)
        self.recording = recording
        self.options = options
        self.watch = ReplayWatch(recording, ReplayPlan(options.until, options.live))
        self.verdict: Verdict | None = None

    def load_prompt(self) -> str:
        return self.recording.prompt

    def extensions(self) -> list[ExtensionSpec]:
        return [self.watch.spec()]

    async def drive(self, context: RunContext, imports: list[ResolvedImport], prompt: str) -> None:
        if self.options.until == 1 and self.options.live is None:
            await context.start()
            self.watch.paused = True
            context.state.record.request_stop("paused")
        else:
            await context.prompt(prompt)
            if self.schema is not None and context.stop_reason is None:
                await enforce_output_schema(context, self.schema)
        verdict = self.verdict = judge(
            self.watch, self.recording, context.stop_reason or "completed", len(context.state.ledger.turns)
        )
        context.state.record.replay_verdict = recorded_verdict(verdict)
        context.state.record.summary_sections.append(summary_section(self.recording))


def recorded_verdict(verdict: Verdict) -> ReplayVerdict:
    """The verdict as the run's record holds it for the summary's first screen: the heading,
    the callout with the diverging call, the diff (``run/explain_replay.py``)."""
    divergence = verdict.divergence
    if divergence is None:
        return ReplayVerdict(verdict.kind, verdict.exit_code, verdict.message)
    what = describe(divergence.tool, divergence.arguments or {}) if divergence.tool else None
    return ReplayVerdict(
        verdict.kind,
        verdict.exit_code,
        verdict.message,
        turn=divergence.turn,
        call=divergence.call,
        tool=divergence.tool,
        what=what,
        diff=divergence.diff,
    )


def summary_section(recording: Recording) -> str:
    """The step summary's account of the recording replayed (the verdict and its diff are the
    summary's heading and first screen: ``RunRecord.replay_verdict``); what the recording says
    (ids, names, reasons) only in code spans, inert whatever it holds."""
    header = recording.header
    run = header.run
    origin = f" of GitHub run {code(run.run_id)} of {code(run.repository)}" if run.run_id and run.repository else ""
    commit = f" at commit {code(header.workspace.commit)}" if header.workspace.commit else ""
    lines = [
        "### The recorded run",
        "",
        f"Recorded session {code(header.session_id)}{origin}{commit}, {recording.turns} turns, "
        f"ended {code(recording.end.stop_reason)}.",
    ]
    return "\n".join(lines)
