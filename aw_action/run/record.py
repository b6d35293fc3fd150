"""The run record: what the run is and how it ended, apart from usage and diagnostics.

Owners: the harness sets the model, the limits, the extensions loaded, the prompts and the end
(``finish``); provenance is recorded once from the assembled inputs (``run/provenance.py``);
any writer of a file the run leaves behind registers it with ``add_file``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import field
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from aw_action.lazy_dataclass import dataclass
from aw_action.timestamps import utc_now

if TYPE_CHECKING:
    from aw_action.security.confinement.git_head import HeadCommitQuery

Audience = Literal["action", "cli", "gh-aw"]
"""Who started the run, so who reads its reports: the action (its inputs), the command line
(config.json) or gh-aw's agent step (its ``GH_AW_*`` variables)."""


@dataclass(frozen=True)
class IgnoredInput:
    """An ``INPUT_*`` variable that names no input of the action (a misspelt ``with:`` key), and
    the input it most likely meant (``github/action_manifest.unknown_inputs``)."""

    variable: str
    likely: str | None = None

    @property
    def spelt(self) -> str:
        """The key as the workflow's ``with:`` most likely spelt it (the runner upper-cased it)."""
        return self.variable[len("INPUT_") :].lower()


@dataclass(frozen=True)
class Reporting:
    """How the run's end is told (the entry point sets it): to whom, and where its records go."""

    audience: Audience = "cli"
    artifact: str | None = None
    """The artifact the action uploads the records as; the summary's records line names it, and
    the action adds the link once the upload is done (``sinks/summary_links.py``)."""
    marker: str = field(default_factory=lambda: secrets.token_hex(8))
    """Marks the summary's records line, so the action amends that line and no other (a random
    token: no text in the summary can forge it)."""
    workflow: str | None = None
    """The workflow the run is for, as the step summary's header names it: ``GITHUB_WORKFLOW`` in
    the action and inside gh-aw, a declarative workflow's id when one runs, the config file's
    name on the command line (``harness/invocation.Harness.workflow_label``)."""
    ignored_inputs: tuple[IgnoredInput, ...] = ()
    """The action's inputs it ignored because action.yml declares no such name: the summary's
    first screen names each with the input it probably meant."""


@dataclass(frozen=True)
class AccessNote:
    """One line of the step summary's "Agent access" note (``harness/guards.py`` writes them)."""

    text: str
    weaker: bool = False
    """What the agent could reach is weaker than the user asked for or than the defaults (tools
    not isolated from the harness, a sandbox the kernel does not enforce, processes not all ended
    at once, records unprotected): only such a line puts the note on the summary's first screen;
    the others (a grant the config wrote, the sandbox as asked) are in its collapsed part."""


@dataclass(frozen=True)
class ReplayVerdict:
    """How a replay came out, as its step summary and closing line tell it (``replay/verdict.py``
    judges it; ``run/explain_replay.py`` words it). What the recording says (the reason, the
    tool, the diff) is foreign text: shown only inert."""

    kind: str
    """``same``, ``paused``, ``diverged``, ``live`` or ``stopped``."""
    exit_code: int
    message: str
    turn: int | None = None
    """The turn it diverged at (1-based)."""
    call: int | None = None
    """The diverging call's place among its turn's tool calls (1-based)."""
    tool: str | None = None
    what: str | None = None
    """The diverging call as the summary's tool-call list shows it (a bash command as written)."""
    diff: str | None = None

    @property
    def conclusion(self) -> str:
        """The step's conclusion: a replay that came out as expected succeeded, whatever the
        recorded run's own end was."""
        return "success" if self.exit_code == 0 else "failure"


@dataclass(frozen=True)
class ReplayCommands:
    """What the step summary needs to say how to replay a GitHub run on one's own machine
    (``sinks/replay_record.replay_hint``): the run, its repository and the commit it worked on."""

    run_id: str
    repository: str
    commit: str | None = None


@dataclass(frozen=True)
class PromptRecord:
    """One prompt of the run and how it ended (a workflow prompts once per step)."""

    index: int
    source: str
    first_turn: int
    turns: int
    stop_reason: str
    error: str | None = None


@dataclass(frozen=True)
class StructuredOutput:
    """The run's ``output-schema`` check: the validated value, or ``valid`` False when the final
    answer never matched (or the run stopped before it could be checked)."""

    valid: bool
    value: Any = None
    corrections: int = 0
    """Corrective prompts sent before the answer matched (or before giving up)."""


@dataclass
class RunRecord:
    model: str
    started_at: datetime = field(default_factory=utc_now)
    started_monotonic: float = field(default_factory=time.monotonic)
    limits: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    """Configured limits by budget kind name; read-only (the gates keep their own copy)."""
    provenance: list[dict[str, Any]] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    extensions_loaded: list[str] = field(default_factory=list)
    setting_up: str | None = None
    """The extension whose setup runs now (an MCP server's start is ``mcp-servers``'s); None once
    every setup is done: a run stopped while it starts is explained by it."""
    current_prompt: int = 0
    """The prompt running now, or the last one (1-based; 0 before the first)."""
    prompts: list[PromptRecord] = field(default_factory=list)
    stop_requested: str | None = None
    """Set when the run must start no further prompt (the deadline passed between prompts)."""
    stop_reason: str | None = None
    final_message: str = ""
    summary_written: bool = False
    """Set by whoever appended this run's step summary, so a last-words path writes none twice."""
    summary_sections: list[str] = field(default_factory=list)
    """Markdown sections (each with its ``###`` heading) that built-ins add to the step summary."""
    structured_output: StructuredOutput | None = None
    """Set when the run has an ``output-schema``."""
    security_notes: list[AccessNote] = field(default_factory=list)
    """What the agent could reach (GitHub access granted, tools left unprotected, the sandbox);
    the step summary shows them (``harness/guards.py`` writes them), on its first screen only
    when one is weaker than asked (``AccessNote.weaker``)."""
    reporting: Reporting = field(default_factory=Reporting)
    last_answer: str = ""
    """The agent's last text however the run ended (``final_message`` is kept only on success;
    the summary shows this one when the answer failed ``output-schema``)."""
    phase: str | None = None
    """gh-aw's ``GH_AW_PHASE`` (``agent``, ``detection``) in gh-aw mode (``run/mode.py``), else None."""
    replay_of: Mapping[str, Any] | None = None
    """When this run replays a recording (``aw-harness replay``): the recording it replays, as
    the replay record's ``replay_of`` (``sinks/replay_format.ReplayOf``); set before the session
    starts."""
    replay_commands: ReplayCommands | None = None
    """Set at the end of a GitHub run a replay can drive (``sinks/replay_record.py``): the summary
    then says how to replay it, in the action once its artifact is uploaded."""
    replay_verdict: ReplayVerdict | None = None
    """When this run is a replay: its verdict, set once the replay is judged (before the summary
    is written); the summary's heading and callout tell it instead of the stop reason's."""
    workspace_commit: HeadCommitQuery | None = None
    """The workspace's ``HEAD`` asked as the run starts (``git_head.HeadCommitQuery``, so git runs
    while the SDK imports); the replay record's header takes it (then None: a later session, a
    workflow's next step, asks again); a run that ends without taking it cancels it, git's
    session killed (``harness/invocation.Harness.run``)."""
    continues: Mapping[str, Any] | None = None
    """When this run continues an earlier run's conversation (``--continue-from``): which session
    and run, from which artifact, and what the runs before it cost (``harness/continuation.py``);
    set before the session starts."""

    @property
    def elapsed_ms(self) -> int:
        return round((time.monotonic() - self.started_monotonic) * 1000)

    def publish_limits(self, limits: Mapping[str, float]) -> None:
        self.limits = MappingProxyType(dict(limits))

    def add_file(self, path: Path) -> None:
        if path not in self.files:
            self.files.append(path)

    def start_prompt(self) -> int:
        self.current_prompt += 1
        return self.current_prompt

    def end_prompt(self, prompt: PromptRecord) -> None:
        self.prompts.append(prompt)

    def request_stop(self, reason: str) -> None:
        self.stop_requested = self.stop_requested or reason

    def finish(self, stop_reason: str, final_message: str) -> None:
        """``final_message`` is the agent's answer only when the run completed: after any stop
        (budget, time, error, cancel) the last text was a step on the way, not an answer, so
        the record keeps none and ``stop_reason`` says why."""
        self.stop_reason = stop_reason
        self.last_answer = final_message
        self.final_message = final_message if stop_reason == "completed" else ""
