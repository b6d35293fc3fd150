"""The replay's own built-in extension: it plays the recording and checks the run against it.

Loaded after the standard built-ins (``Harness.extensions``), so the tools, their policies and
sandbox, the budgets and the records are the run's as always. It

- marks the run as a replay (``RunRecord.replay_of``: the replay record's header says so) and
  registers the replay provider (``ai/replay.py``) with the recorded replies, up to ``--until``;
  with ``--continue`` the live model's provider answers once they run out;
- rewrites the recorded run's workspace, output dir and temp dir in each replayed tool call's
  arguments to the replay's (the model named the paths it was shown);
- compares each replayed call's result with the recorded one (``compare.py``); at the first
  difference it stops the run (stop reason ``diverged``) and keeps the ``Divergence``; a
  ``replay_divergence`` record (turn, call id, tool) says it in the JSONL stream and the records,
  the diff is in the replay's report;
- stops the run before a call the recorded run did not finish (stop reason
  ``recording_ended``): one whose result the recording does not hold, or, in the turn a recorded
  run was cancelled or timed out in, one whose recorded result is an error (cut by the stop, or
  failed just before it): a command that hung in CI is not run again;
- plays an MCP tool's recorded results back (``mcp_playback``): a replay starts no MCP server
  (``confine.py`` drops ``mcp-servers``); each ``mcp__`` tool the recorded replies call is a
  stand-in whose result is the recorded one (content and details, so the comparison holds), and
  a ``replay_mcp_playback`` record names the tools played back;
- with ``--until TURN`` (and no ``--continue``) ends the run cleanly after turn ``TURN - 1``
  (stop reason ``paused``), the workspace left as the recorded run had it then.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from aw_action.agent.events import MessageEnd, ToolCallEvent, TurnEnd
from aw_action.agent.tools import ToolContext, ToolError, ToolResult
from aw_action.ai.credentials import missing_credentials
from aw_action.ai.replay import Live, RecordedReply, ReplayProvider
from aw_action.ai.types import AssistantMessage, Model, ToolCall, ToolResultMessage
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.extensions.loader import ExtensionSpec
from aw_action.lazy_dataclass import dataclass
from aw_action.mcp.names import server_of
from aw_action.replay.compare import Normaliser, Substitution, difference, rendered
from aw_action.replay.recording import Recording
from aw_action.sinks.replay_format import PATHS, ReplayOf, varying

NAME = "replay"
STOP_DIVERGED = "diverged"
STOP_RECORDING_ENDED = "recording_ended"
EXTERNAL_STOPS = frozenset({"cancelled", "timeout"})
"""Recorded stops that came from outside the run: a replay that reaches them has replayed it all."""


@dataclass(frozen=True)
class Divergence:
    """Where the replay first differed from the recording."""

    turn: int
    reason: str
    tool_call_id: str | None = None
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    diff: str | None = None
    call: int | None = None
    """The call's place among the tool calls of its turn's reply (1-based)."""


@dataclass(frozen=True)
class ReplayPlan:
    until: int | None = None
    """Stop before this turn (1-based)."""
    live: Model | None = None
    """``--continue``: the model that answers once the replayed turns are done."""


@dataclass
class ReplayWatch:
    recording: Recording
    plan: ReplayPlan = field(default_factory=ReplayPlan)
    divergence: Divergence | None = None
    recording_ended: str | None = None
    paused: bool = False
    compared: int = 0

    def __post_init__(self) -> None:
        until = self.plan.until
        kept = [r for r in self.recording.replies if until is None or r.turn < until]
        self.provider = ReplayProvider([RecordedReply(r.purpose, r.turn, r.message) for r in kept], adapt=self.adapt)
        self.replayed_calls = {call.id for reply in kept for call in reply.message.tool_calls}
        header = self.recording.header
        self.recorded = Normaliser(header.varies, header.patterns)
        self.replayed = self.recorded
        self.moves = Substitution({})
        self.api: ExtensionAPI | None = None

    def spec(self) -> ExtensionSpec:
        return ExtensionSpec(NAME, self.setup, True)

    def setup(self, api: ExtensionAPI) -> None:
        self.api = api
        header = self.recording.header
        origin = ReplayOf(session_id=header.session_id, run=header.run, records=self.recording.records)
        api.state.record.replay_of = origin.model_dump(mode="json")
        if self.plan.live is not None:
            self.provider.then = Live(live_provider(api, self.plan.live), self.plan.live)
        api.register_provider(NAME, self.provider)
        played = self.mcp_playback(api)
        if played:
            api.emit(
                "replay_mcp_playback", tools=played, note="MCP results are the recording's; no server was contacted"
            )
        api.on("session_start", self.on_start)
        api.on("tool_call", self.on_tool_call)
        api.on("message_end", self.on_message_end)
        api.on("turn_end", self.on_turn_end)

    def mcp_playback(self, api: ExtensionAPI) -> list[str]:
        """Register a stand-in for each MCP tool the recorded replies call (module docstring)."""
        names = sorted({c.name for r in self.recording.replies for c in r.message.tool_calls if server_of(c.name)})
        results = self.recording.results

        async def play(call_id: str, args: dict[str, Any], signal: Any, update: Any, tc: ToolContext) -> ToolResult:
            recorded = results.get(call_id)
            if recorded is None:
                raise ToolError("the recording holds no result for this MCP call")
            if recorded.is_error:
                raise ToolError(recorded.text)
            return ToolResult(content=list(recorded.content), details=dict(recorded.details or {}))

        for name in names:
            api.register_tool(name=name, description="(replayed MCP tool)", execute=play)
        return names

    def on_start(self, event: Any, ctx: ExtensionContext) -> None:
        session = ctx.session
        tmpdir = session.tool_context.env.get("TMPDIR")
        varies = varying(
            str(ctx.workspace), str(ctx.output_dir), tmpdir, session.session_id, ctx.runner_facts.run_id or None
        )
        self.replayed = Normaliser(varies, self.recording.header.patterns)
        recorded = self.recording.header.varies
        self.moves = Substitution(
            {recorded[name]: varies[name] for name in PATHS if name in recorded and name in varies}
        )

    def adapt(self, message: AssistantMessage) -> AssistantMessage:
        """The recorded run's paths in tool-call arguments, as the replay's."""
        message.content = [
            block.model_copy(update={"arguments": self.moves.within(block.arguments)})
            if isinstance(block, ToolCall)
            else block
            for block in message.content
        ]
        return message

    def on_tool_call(self, event: ToolCallEvent, ctx: ExtensionContext) -> None:
        """Stop before a call the recorded run did not finish: no recorded result, or (in the turn
        a recorded run was stopped in from outside) a failed one: what was cut is never run."""
        call_id, end = event.tool_call_id, self.recording.end
        if call_id not in self.replayed_calls or self.recording_ended is not None:
            return
        recorded = self.recording.results.get(call_id)
        turn = self.recording.turn_of_call(call_id) or 0
        cut = turn > end.turns and end.stop_reason in EXTERNAL_STOPS and (recorded is None or recorded.is_error)
        if recorded is None or cut:
            what = f"{event.tool_name} call {call_id} of turn {turn}"
            self.recording_ended = (
                f"the recorded run was stopped ({end.stop_reason}) before its {what} finished"
                if cut
                else f"the recording holds no result for the {what}"
            )
            ctx.abort(STOP_RECORDING_ENDED)

    def on_message_end(self, event: MessageEnd, ctx: ExtensionContext) -> None:
        message = event.message
        if not isinstance(message, ToolResultMessage) or self.divergence is not None or self.recording_ended:
            return
        recorded = self.recording.results.get(message.tool_call_id)
        if message.tool_call_id not in self.replayed_calls or recorded is None:
            return
        self.compared += 1
        scrub = self.api.services.redactor.text if self.api is not None else str
        diff = difference(rendered(recorded, self.recorded), scrub(rendered(message, self.replayed)))
        if diff is None:
            return
        turn = self.recording.turn_of_call(message.tool_call_id) or ctx.state.ledger.next_turn
        place, call = next(
            (
                (i, c)
                for r in self.recording.replies
                for i, c in enumerate(r.message.tool_calls, 1)
                if c.id == message.tool_call_id
            ),
            (None, None),
        )
        what = f"{message.tool_name} call {message.tool_call_id}"
        self.divergence = Divergence(
            turn=turn,
            reason=f"turn {turn}: the result of {what} differs from the recording",
            tool_call_id=message.tool_call_id,
            tool=message.tool_name,
            arguments=call.arguments if call is not None else None,
            diff=diff,
            call=place,
        )
        ctx.emit("replay_divergence", turn=turn, tool_call_id=message.tool_call_id, tool=message.tool_name)
        ctx.abort(STOP_DIVERGED)

    def on_turn_end(self, event: TurnEnd, ctx: ExtensionContext) -> None:
        if event.stop_reason is not None or self.plan.live is not None:
            return
        until = self.plan.until
        if until is not None and len(ctx.state.ledger.turns) >= until - 1:
            self.pause(ctx)
        elif not self.provider.remaining and self.recording.end.stop_reason in EXTERNAL_STOPS:
            ctx.session.end_after_turn()  # the recorded run was stopped here from outside

    def pause(self, ctx: ExtensionContext) -> None:
        self.paused = True
        ctx.state.record.request_stop("paused")
        ctx.session.end_after_turn()


def live_provider(api: ExtensionAPI, model: Model) -> Any:
    """The provider provider setup built for ``model`` (its SDK loaded now); ``InvocationError``
    naming the variables when the environment holds no credential for it."""
    provider = api.services.registry.provider(model.provider)
    if provider is None:
        raise missing_credentials(model, [])
    ensure_sdk = getattr(provider, "ensure_sdk", None)
    if callable(ensure_sdk):
        ensure_sdk()
    return provider
