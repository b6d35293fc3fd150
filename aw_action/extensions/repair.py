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
    classify_error,
    clean_result_text,
    progress_summary,
    repair_history,
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


def setup(api: ExtensionAPI) -> None:
    context = api.config.harness.context
    recoveries = 0
    overflow_compacted = False
    reported: set[tuple[str, str]] = set()

    def report(ctx: ExtensionContext, fixes: list[Fix], persisted: bool) -> None:
        for fix in fixes:
            key = (fix.action, fix.tool_call_id)
            if key in reported:
                continue
            reported.add(key)
            ctx.emit("repair", **fix.fields(), persisted=persisted)

    def on_tool_result(event: ToolResultEvent, ctx: ExtensionContext) -> ToolResultPatch | None:
        text, done = clean_result_text(event.result.text)
        if not done:
            return None
        report(ctx, [Fix(action, event.tool_name, event.tool_call_id) for action in done], True)
        return ToolResultPatch(text=text)

    def repair_saved(ctx: ExtensionContext) -> None:
        fixed, fixes = repair_history(effective_history(ctx.session))
        if fixes:
            ctx.session.replace_messages(fixed, "repair")
            ctx.session.append_entry("repair", [f.fields() for f in fixes])
            report(ctx, fixes, True)

    def on_context(event: ContextEvent, ctx: ExtensionContext) -> ContextResult | None:
        fixed, fixes = repair_history(event.messages)
        if not fixes:
            return None
        report(ctx, fixes, False)
        return ContextResult(fixed)

    def on_turn_end(event: TurnEnd, ctx: ExtensionContext) -> None:
        repair_saved(ctx)

    async def on_agent_end(event: AgentEnd, ctx: ExtensionContext) -> None:
        nonlocal recoveries, overflow_compacted
        repair_saved(ctx)
        failed = next((m for m in reversed(event.messages) if isinstance(m, AssistantMessage)), None)
        if event.error is None or failed is None or failed.stop_reason != "error" or ctx.session.signal.aborted:
            return
        kind = classify_error(failed.error_kind, failed.error_message)
        if kind == "fatal":
            return
        error = failed.error_message or event.error
        if recoveries >= MAX_RECOVERIES:
            ctx.emit("repair", action="recovery_exhausted", error=error, attempts=recoveries)
            return
        summary = progress_summary(effective_history(ctx.session))  # before compaction drops the middle
        if kind == "overflow":
            if overflow_compacted:
                ctx.emit("repair", action="overflow_recovery_failed", error=error)
                return
            overflow_compacted = True
            strategy = context.compaction if context.compaction != "none" else "sliding-window"
            if not await compact(ctx, strategy, "overflow", context.compaction_threshold, force=True):
                ctx.emit("repair", action="overflow_recovery_failed", error=error)
                return
        recoveries += 1
        ctx.follow_up(follow_up_text(kind, error, summary))
        ctx.emit("repair", action="follow_up_after_recoverable_error", error=error, kind=kind, attempt=recoveries)

    api.on("tool_result", on_tool_result)
    api.on("context", on_context)
    api.on("turn_end", on_turn_end)
    api.on("agent_end", on_agent_end)
