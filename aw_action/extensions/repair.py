"""Built-in extension 4: session repair (spec §8.4).

- ``tool_result``: each result is sanitised as it arrives (invalid UTF-8, terminal escapes and
  control characters; oversized text capped), before it reaches the history.
- ``turn_end`` and ``agent_end``: the whole history is checked with ``repair_history`` (calls
  without results, results without calls, misplaced or duplicate results, invalid arguments);
  a fixed history is written with ``session.replace_messages``, which lands at the save point
  right after (``agent_end``: when the run settles), so nothing appended later is lost.
- ``context``: the same check on the copy sent with each request, so a provider never sees a
  broken history even between save points.
- ``agent_end`` with a recoverable error (transient after the provider's retries, context
  overflow, a history the provider rejected): a follow-up with a summary of the progress so
  far, at most ``MAX_RECOVERIES`` times a run; an overflow is first compacted, once.

Every fix emits a JSONL ``repair`` record ``{action, tool_name, tool_call_id, ...}``.
"""

from __future__ import annotations

from aw_action.agent.events import AgentEnd, ContextEvent, ContextResult, ToolResultEvent, ToolResultPatch, TurnEnd
from aw_action.ai.types import AssistantMessage
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.extensions.compaction import compact, effective_history
from aw_action.extensions.repair_rules import (
    Fix,
    HistoryCheck,
    classify_error,
    clean_result_text,
    progress_summary,
)

MAX_RECOVERIES = 2

FOLLOW_UP = {
    "transient": 'The previous request failed with a transient error after retries: "{error}".',
    "overflow": "The previous request overflowed the model's context window; older messages were compacted.",
    "history": 'The provider rejected the conversation history ("{error}"); the history was repaired.',
}


def follow_up_text(kind: str, error: str, summary: str) -> str:
    head = FOLLOW_UP[kind].format(error=error[:300])
    return f"{head} {summary}\nContinue from where you left off; do not repeat work that is already done."


class Repair:
    def __init__(self, api: ExtensionAPI) -> None:
        self.context = api.config.harness.context
        self.recoveries = 0
        self.overflow_compacted = False
        self.reported: set[tuple[str, str]] = set()
        self.check_saved = HistoryCheck()
        self.check_sent = HistoryCheck()

    def report(self, ctx: ExtensionContext, fixes: list[Fix], persisted: bool) -> None:
        for fix in fixes:
            key = (fix.action, fix.tool_call_id)
            if key in self.reported:
                continue
            self.reported.add(key)
            ctx.emit("repair", **fix.fields(), persisted=persisted)

    def on_tool_result(self, event: ToolResultEvent, ctx: ExtensionContext) -> ToolResultPatch | None:
        text, done = clean_result_text(event.result.text)
        if not done:
            return None
        self.report(ctx, [Fix(action, event.tool_name, event.tool_call_id) for action in done], True)
        return ToolResultPatch(text=text)

    def repair_saved(self, ctx: ExtensionContext) -> None:
        fixed, fixes = self.check_saved(effective_history(ctx.session))
        if fixes:
            ctx.session.replace_messages(fixed, "repair")
            ctx.session.append_entry("repair", [f.fields() for f in fixes])
            self.report(ctx, fixes, True)

    def on_context(self, event: ContextEvent, ctx: ExtensionContext) -> ContextResult | None:
        fixed, fixes = self.check_sent(event.messages)
        if not fixes:
            return None
        self.report(ctx, fixes, False)
        return ContextResult(fixed)

    def on_turn_end(self, event: TurnEnd, ctx: ExtensionContext) -> None:
        self.repair_saved(ctx)

    async def on_agent_end(self, event: AgentEnd, ctx: ExtensionContext) -> None:
        self.repair_saved(ctx)
        failed = next((m for m in reversed(event.messages) if isinstance(m, AssistantMessage)), None)
        if event.error is None or failed is None or failed.stop_reason != "error" or ctx.session.signal.aborted:
            return
        kind = classify_error(failed.error_kind, failed.error_message)
        if kind == "fatal":
            return
        error = failed.error_message or event.error
        if self.recoveries >= MAX_RECOVERIES:
            ctx.emit("repair", action="recovery_exhausted", error=error, attempts=self.recoveries)
            return
        summary = progress_summary(effective_history(ctx.session))  # before compaction drops the middle
        if kind == "overflow" and not await self.compact_after_overflow(ctx, error):
            return
        self.recoveries += 1
        ctx.follow_up(follow_up_text(kind, error, summary))
        ctx.emit("repair", action="follow_up_after_recoverable_error", error=error, kind=kind, attempt=self.recoveries)

    async def compact_after_overflow(self, ctx: ExtensionContext, error: str) -> bool:
        """Compact once a run to recover from a context overflow; False when that is not possible."""
        if not self.overflow_compacted:
            self.overflow_compacted = True
            context = self.context
            strategy = context.compaction if context.compaction != "none" else "sliding-window"
            if await compact(ctx, strategy, "overflow", context.compaction_threshold, force=True):
                return True
        ctx.emit("repair", action="overflow_recovery_failed", error=error)
        return False


def setup(api: ExtensionAPI) -> None:
    repair = Repair(api)
    api.on("tool_result", repair.on_tool_result)
    api.on("context", repair.on_context)
    api.on("turn_end", repair.on_turn_end)
    api.on("agent_end", repair.on_agent_end)
