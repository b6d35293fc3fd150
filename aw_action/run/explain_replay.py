"""A replay's verdict in words (``run/explain.py`` asks here first for a run that is a replay):
the heading says ``Replayed the same`` or ``Diverged at turn N, call M``, the callout says which
call and that the diff follows, and what to do about it. What the recording says (its reasons,
the call, the tool's name) is foreign text: a ``Verbatim`` or a ``Name``, inert in Markdown.
"""

from __future__ import annotations

from aw_action.run.explanation import Explanation, Name, Verbatim, Words
from aw_action.run.record import ReplayVerdict

CALL_CHARS = 120
"""A diverging call is named by at most this much of its command (the tool-call list has it all)."""
RECORD_AGAIN: Words = (
    "If the change that made the difference was meant, record the run again and replay the new records; "
    "if not, the diff shows what it did to the agent's view.",
)


def diverged_title(verdict: ReplayVerdict) -> str:
    """``Diverged at turn 3, call 2`` (``call`` when a tool result differed)."""
    turn = f" at turn {verdict.turn}" if verdict.turn else ""
    call = f", call {verdict.call}" if verdict.call else ""
    return f"Diverged{turn}{call}"


def _call(verdict: ReplayVerdict) -> Words:
    what = verdict.what or verdict.tool or ""
    shown = what if len(what) <= CALL_CHARS else what[: CALL_CHARS - 1] + "…"
    tool = (" (", Name(verdict.tool), ")") if verdict.tool and verdict.tool != "bash" and what != verdict.tool else ()
    return (Verbatim(shown), *tool) if shown else ()


def explain_replay(verdict: ReplayVerdict, stop_reason: str) -> Explanation:
    """The explanation of a replay that ended with ``verdict``."""
    message: Words = (Verbatim(verdict.message.rstrip(".")), ".")
    if verdict.kind == "diverged":
        if verdict.call and (verdict.what or verdict.tool):
            why: Words = (
                f"The result of call {verdict.call} of turn {verdict.turn}, ",
                *_call(verdict),
                ", differs from the recording",
                ": the diff is below." if verdict.diff else ".",
            )
        else:
            why = message
        return Explanation(stop_reason, "error", diverged_title(verdict), why, RECORD_AGAIN)
    if verdict.kind == "same":
        return Explanation(stop_reason, "notice", "Replayed the same", message)
    if verdict.kind == "paused":
        return Explanation(stop_reason, "notice", "Paused as asked", message)
    if verdict.kind == "live":
        if verdict.exit_code == 0:
            return Explanation(stop_reason, "notice", "Replayed, then went on live", message)
        return Explanation(stop_reason, "error", "Replayed, then went on live", message)
    fix: Words = ("Run the replay again; give it more time if it ran out of it.",)
    return Explanation(stop_reason, "error", "Replay stopped", message, fix)
