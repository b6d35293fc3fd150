"""Built-in extension: context compaction (``harness.context``), loaded after repair.

After a turn whose answer asked for tools (so another request follows), when the context reaches
``compaction-threshold`` of the model's context window, the history is compacted
(``aw_action/agent/compaction.py``): ``sliding-window`` drops the middle, ``summarize`` asks the
model for a structured summary of it (a ``purpose="compaction"`` request, gated and counted by
the cost tracker like any other). The most recent messages and the task prompt stay verbatim.

The new history is written with ``session.replace_messages`` from the ``turn_end`` handler, so it
is applied at the save point that directly follows, before anything else is appended. A run that continues
an earlier conversation is compacted the same way at ``session_start``, before its first request
(reason ``continued``). ``compact``
is also what repair calls to recover from a context overflow. Each compaction emits a JSONL
``compaction`` record with the context tokens before and after.
"""

from __future__ import annotations

from aw_action.agent.compaction import (
    SUMMARY_SYSTEM_PROMPT,
    context_tokens,
    messages_tokens,
    plan_compaction,
    sliding_window,
    summarized,
    summary_request_text,
)
from aw_action.agent.events import AnyMessage, TurnEnd
from aw_action.agent.loop import request_model
from aw_action.agent.session import AgentSession
from aw_action.ai.types import StreamOptions, UserMessage
from aw_action.extensions.api import ExtensionAPI, ExtensionContext

KEEP_RECENT_TOKENS = 20_000
KEEP_FRACTION = 0.4
"""The verbatim tail is at most ``KEEP_FRACTION`` of the trigger point, and never above 20k tokens."""
SUMMARY_MAX_TOKENS = 8_192


def keep_tokens(context_window: int, threshold: float) -> int:
    return max(1, min(KEEP_RECENT_TOKENS, int(context_window * threshold * KEEP_FRACTION)))


def effective_history(session: AgentSession) -> list[AnyMessage]:
    """The history as it will be once pending writes flush (the last queued replacement wins)."""
    for write in reversed(session.pending_writes):
        if write.kind == "replace_messages":
            return list(write.messages)
    return session.messages


async def summarize(session: AgentSession, dropped: list[AnyMessage]) -> str | None:
    """Ask the session's model for a summary of ``dropped`` (a ``compaction`` request on the
    loop's own request path); None when it failed or was refused."""
    snapshot = session.snapshot()
    model = snapshot.model
    text = summary_request_text(dropped, max_chars=model.context_window * 2)
    final = await request_model(
        session,
        snapshot,
        system_prompt=SUMMARY_SYSTEM_PROMPT,
        messages=[UserMessage.of(text, source="compaction")],
        tools=(),
        options=StreamOptions(max_tokens=min(SUMMARY_MAX_TOKENS, model.max_output_tokens)),
        purpose="compaction",
        live=False,
    )
    if session.signal.aborted or final.stop_reason in ("error", "aborted") or not final.text.strip():
        return None
    return final.text


async def compact(ctx: ExtensionContext, strategy: str, reason: str, threshold: float, force: bool = False) -> bool:
    """Compact the session's history if it is over ``threshold`` (or ``force``); True if done."""
    session = ctx.session
    messages = effective_history(session)
    model = session.model
    before = context_tokens(messages)
    if not force and before < threshold * model.context_window:
        return False
    plan = plan_compaction(messages, keep_tokens(model.context_window, threshold))
    if plan is None:
        message = (
            f"context compaction ({reason}) found nothing to drop: the system prompt, the tool "
            "definitions or the most recent messages fill the context"
        )
        if not ctx.state.journal.warned(message):  # once a run, not once a turn
            ctx.warn(message)
        return False
    used = strategy
    if strategy == "summarize":
        summary = await summarize(session, messages[plan.head : plan.cut])
        if session.signal.aborted:
            return False
        if summary is None:
            ctx.warn("context summary failed; dropping the older messages instead (sliding window)")
            used = "sliding-window"
        else:
            new = summarized(messages, plan, summary)
    if used == "sliding-window":
        new = sliding_window(messages, plan)
    after = messages_tokens(new)
    record = {
        "strategy": used,
        "reason": reason,
        "tokens_before": before,
        "tokens_after": after,
        "messages_before": len(messages),
        "messages_after": len(new),
        "dropped_messages": plan.cut - plan.head,
        "context_window": model.context_window,
    }
    session.replace_messages(new, f"compaction:{reason}")
    session.append_entry("compaction", record)
    ctx.emit("compaction", **record)
    return True


def setup(api: ExtensionAPI) -> None:
    settings = api.config.harness.context
    if settings.compaction == "none":
        return

    async def on_turn_end(event: TurnEnd, ctx: ExtensionContext) -> None:
        if event.message.tool_calls and not ctx.session.signal.aborted:
            await compact(ctx, settings.compaction, "threshold", settings.compaction_threshold)

    async def on_session_start(_event: object, ctx: ExtensionContext) -> None:
        """A run that continues an earlier conversation (``harness/continuation.py``) starts with
        its history: compacted here, before the first request, when it is over the threshold."""
        if ctx.session.messages:
            await compact(ctx, settings.compaction, "continued", settings.compaction_threshold)

    api.on("turn_end", on_turn_end)
    api.on("session_start", on_session_start)
