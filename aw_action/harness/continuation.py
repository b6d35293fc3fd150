"""Continuing an earlier run's conversation (``--continue-from``, the action's ``continue-from``;
docs/continue.md).

An entry point reads the earlier run's artifact into a ``Continuation`` (``replay/continuation.py``:
bounded, every file it reads checked against the artifact's ``records.sha256``); the harness
(``invocation.Harness``) then:

- checks, before anything is assembled, that the history and the new prompt fit
  (``fit_problem``): with ``harness.context.compaction`` off, a conversation larger than the model's
  context window is an ``InvocationError`` naming the input (exit 2); with compaction on, the
  compaction built-in compacts it by the configured policy before the first request
  (``extensions/compaction.py``, reason ``continued``);
- seeds the session (``seed``): the reasoning blocks and signatures of another model are dropped
  (``agent/config_change.reasoning_for``), the user messages are marked ``continued`` (never a
  source a built-in acts on), and every message is written to this run's transcript after a
  ``continued`` entry, so a run continued from this one's artifact gets the whole conversation;
  ``RunRecord.continues`` says which session and run it continues;
- adds the step summary's section with the earlier runs' cost beside this run's (``section``).

Only messages come from the artifact: its config, extensions, schemas and paths are never read,
and the history is sent to the model as the untrusted text it is (the same budgets gate it: the
first request re-sends all of it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aw_action.agent.compaction import messages_tokens
from aw_action.agent.config_change import reasoning_for
from aw_action.agent.events import AnyMessage
from aw_action.agent.session import AgentSession
from aw_action.ai.types import Model, UserMessage
from aw_action.ai.usage import estimate_tokens
from aw_action.lazy_dataclass import dataclass
from aw_action.run.config import RunConfig
from aw_action.run.ledger import UsageLedger
from aw_action.sinks.markdown import code, integer, table, usd

SOURCE = "continued"
"""The ``UserMessage.source`` of every user message taken from an earlier run."""


@dataclass(frozen=True)
class Continuation:
    """An earlier run's conversation, as its checked artifact holds it."""

    source: str
    """The input or option that named it (``continue-from``, ``--continue-from``), for messages."""
    where: str
    """The folder or zip it was read from."""
    session_id: str
    run: Mapping[str, str]
    """The GitHub run that recorded it, as its records say (``repository``, ``run_id``,
    ``server_url`` when known)."""
    messages: tuple[AnyMessage, ...]
    cost_usd: float | None
    """The continued run's own cost (None: some request's price was unknown)."""
    tokens: int = 0
    """The continued run's own tokens (every request's, as its replay record holds them)."""
    earlier_runs: int = 0
    """The runs the continued run itself continued."""
    earlier_cost_usd: float | None = 0.0
    earlier_tokens: int = 0

    @property
    def runs(self) -> int:
        """The runs before this one in the conversation."""
        return self.earlier_runs + 1

    @property
    def cost_before(self) -> float | None:
        """What the runs before this one cost together (None when any is unknown)."""
        if self.cost_usd is None or self.earlier_cost_usd is None:
            return None
        return round(self.cost_usd + self.earlier_cost_usd, 6)

    def record(self) -> dict[str, Any]:
        """``RunRecord.continues``, the replay header's ``continues`` and the JSONL line."""
        return {
            "session_id": self.session_id,
            "run": dict(self.run),
            "artifact": self.where,
            "runs": self.runs,
            "cost_usd": self.cost_before,
            "tokens": self.tokens + self.earlier_tokens,
        }


def fit_problem(continuation: Continuation, prompt: str, model: Model, config: RunConfig) -> str | None:
    """Why the conversation cannot be continued with ``model`` under ``config``, or None."""
    tokens = messages_tokens(continuation.messages) + estimate_tokens(prompt)
    if config.harness.context.compaction != "none" or tokens <= model.context_window:
        return None
    return (
        f"{continuation.source} {continuation.where}: its conversation is about {tokens:,} tokens with the new "
        f"prompt, more than {model.ref}'s context window ({model.context_window:,}) and compaction is off; "
        "set harness.context.compaction (sliding-window or summarize) to continue it compacted"
    )


def seed(session: AgentSession, continuation: Continuation) -> dict[str, Any]:
    """Put the earlier conversation into the idle ``session`` (module docstring); returns the
    record of what was continued, with the reasoning blocks dropped."""
    messages, dropped = reasoning_for(continuation.messages, session.model)
    messages = [m.model_copy(update={"source": SOURCE}) if isinstance(m, UserMessage) else m for m in messages]
    record = {**continuation.record(), "messages": len(messages), "reasoning_dropped": dropped}
    transcript = session.transcript
    if transcript is not None:
        transcript.append(SOURCE, **record)
        for message in messages:
            transcript.append_message(message)
    session.replace_messages(messages, SOURCE)
    return record


def section(continuation: Continuation, ledger: UsageLedger) -> str:
    """The step summary's section: this run's tokens and cost beside the earlier runs'."""
    before, now = continuation.cost_before, ledger.cost_usd
    total = None if before is None or now is None else before + now
    tokens_before = continuation.tokens + continuation.earlier_tokens
    run = continuation.run
    made_by = f" of run {code(run['run_id'])}" if run.get("run_id") else ""
    rows = [
        [f"earlier runs ({continuation.runs})", integer(tokens_before), usd(before)],
        ["this run", integer(ledger.totals.total), usd(now)],
        ["**all runs**", f"**{integer(tokens_before + ledger.totals.total)}**", f"**{usd(total)}**"],
    ]
    return (
        "### Continued conversation\n\n"
        f"This run continues session {code(continuation.session_id)}{made_by} ({continuation.source}).\n\n"
        + table(["runs", "tokens", "cost"], rows, "lrr", escaped=True)
        + "\n\nThe budgets are this run's own: its first request re-sent the earlier conversation, and they "
        "counted it."
    )
