"""Why a run ended, said once: one explanation per stop reason, in the words of whoever started it.

``explain(result, audience)`` is the one place that turns a run's end into words: a title, one
sentence of why (with the number hit and the limit) and, when something can be changed, the fix
(the setting to change, named as the person who started the run sets it: an action input in the
action, a config.json key on the command line, a ``GH_AW_*`` variable in gh-aw mode). Every
reporter reads it: the step summary's header and callout (``sinks/summary.py``), the action's
closing annotation, the progress comment's last update (``sinks/progress.py``) and the CLI's
last line (``sinks/closing.py``). What an explanation is made of: ``run/explanation.py``; a run
that could not start or whose key was refused: ``run/explain_start.py``; a replay, by its
verdict rather than its stop reason: ``run/explain_replay.py``.

The table is ``EXPLAINERS``: a stop reason's function, or ``_failed`` for any reason it lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aw_action.run import human
from aw_action.run.budget_kinds import BUDGET_KINDS, KINDS_BY_NAME, KINDS_BY_STOP_REASON, BudgetKind
from aw_action.run.explain_replay import explain_replay
from aw_action.run.explain_start import credentials_refused, invocation
from aw_action.run.explanation import Explainer, Explanation, Facts, Name, Verbatim, Words, budget_setting
from aw_action.run.record import Audience
from aw_action.run.result import RunResult
from aw_action.run.time_budget import TimeBudget


def explain(result: RunResult, audience: Audience) -> Explanation:
    """The explanation of how ``result`` ended, for ``audience``."""
    facts = Facts(result, audience)
    if result.state is not None and result.state.record.replay_verdict is not None:
        return explain_replay(result.state.record.replay_verdict, result.stop_reason)
    return EXPLAINERS.get(result.stop_reason, _failed)(facts)


def _raise(kind: BudgetKind, facts: Facts, verb: str = "Raise") -> Words:
    """The fix that raises ``kind``'s limit (``verb`` lower-cased where the fix goes on a sentence)."""
    limit = facts.limits.get(kind.name)
    now = f" (now {human.limit(kind, limit)})" if limit is not None else ""
    if kind.gate == "deadline" and facts.audience == "gh-aw":
        now = ""  # the run's limit is what was left of the workflow's when it started, not the setting to raise
    return (f"{verb} ", *budget_setting(kind, facts.audience), now, " or narrow the task.")


# ---- the explainers --------------------------------------------------------------------------


def _completed(facts: Facts) -> Explanation:
    state = facts.state
    turns = len(state.ledger.turns) if state else 0
    failed = state.ledger.failed_tool_calls if state else 0
    calls = state.ledger.calls_made if state else 0
    did = f"in {human.count(turns, 'turn')}" + (f" and {human.count(calls, 'tool call')}" if calls else "")
    if failed:
        return Explanation(
            "completed",
            "warning",
            f"{failed} of {human.count(calls, 'tool call')} failed",
            (f"The agent finished anyway, {did}.",),
            (f"Check that the answer accounts for the failed {'call' if failed == 1 else 'calls'}.",),
        )
    answered = "answered" if state is not None and state.record.final_message.strip() else "finished"
    return Explanation("completed", "notice", "Finished", (f"The agent {answered} {did}.",))


def _budget(facts: Facts) -> Explanation:
    """A budget stop: the cost tracker's record says which budget, why and the figures."""
    state = facts.state
    info: Mapping[str, Any] = (state.journal.budget_exceeded if state else None) or {}
    kind = KINDS_BY_NAME.get(str(info.get("budget") or ""))
    if kind is None:  # a budget stop reason without its record: the kind whose reason it is
        kind = KINDS_BY_STOP_REASON.get(facts.result.stop_reason)
    if kind is None:
        return _failed(facts)
    if kind.gate == "deadline":
        return _timeout(facts)
    used, limit = info.get("used"), info.get("limit", facts.limits.get(kind.name))
    if used is None and state is not None:
        used = kind.used(state)
    if info.get("reason") == "external_limit":
        return _external(facts, kind, used, limit)
    figures = f"{human.amount(kind, used)} of {human.amount(kind, limit)} {kind.label.lower()} used"
    share = f" ({human.percent(used, limit)})" if used is not None and limit else ""
    return Explanation(
        facts.result.stop_reason,
        "error",
        f"Stopped by the {kind.limit_name}",
        (f"{figures}{share}; {_trigger(kind, info)}",),
        _raise(kind, facts),
    )


def _trigger(kind: BudgetKind, info: Mapping[str, Any]) -> str:
    """Why the run stopped where it did (``info["trigger"]``, the cost tracker's)."""
    trigger = info.get("trigger")
    if trigger == "next_request":
        worst = human.amount(kind, info.get("next_request"))
        size = human.number(info.get("input_tokens"))
        return (
            f"the next request was not sent: at its worst ({worst}, for a prompt of about {size} tokens "
            "with nothing cached) it could have passed the limit."
        )
    if trigger == "answer_cut":
        return (
            f"the last answer was cut at {human.number(info.get('max_tokens'))} tokens, all the budget left "
            "paid for, and discarded."
        )
    if trigger == "critical_percent":
        return f"no request starts once {info.get('critical_percent', 100):g}% of the limit is used."
    if kind.gate_stop and trigger == kind.stop_reason:
        return kind.gate_stop
    return "the turns before the limit are kept."


def _external(facts: Facts, kind: BudgetKind, used: Any, limit: Any) -> Explanation:
    stated = f" ({human.amount(kind, used)} of {human.amount(kind, limit)})" if used and limit else ""
    return Explanation(
        facts.result.stop_reason,
        "error",
        f"The workflow's {kind.label.lower()} are spent",
        (f"AWF's api-proxy refused a request: the run's {kind.label.lower()} budget is spent{stated}.",),
        _raise(kind, facts),
    )


def _timeout(facts: Facts) -> Explanation:
    kind = KINDS_BY_NAME["minutes"]
    state = facts.state
    elapsed = state.elapsed_ms / 1000.0 if state else None
    limit = facts.limits.get("minutes")
    if limit is None:
        why: Words = (f"The run was stopped by its deadline after {human.duration(elapsed)}.",)
        return Explanation("timeout", "error", "Time limit reached", why, _raise(kind, facts))
    margin = TimeBudget.from_minutes(limit, 0, 0).margin_s
    of = "the" if facts.audience == "gh-aw" else "its"
    left = " left of the workflow's time when it started" if facts.audience == "gh-aw" else ""
    starting = _setting_up(facts)
    why = (
        f"The run stopped after {human.duration(elapsed)} of {of} {human.minutes(limit)}{left} "
        f"({human.percent(elapsed, limit * 60)})",
        *((" ", *_still_starting(starting)) if starting else ()),
        f": the harness stops {human.duration(margin)} before the limit so that its records and summary get written.",
    )
    fix: Words = (
        (
            "Find out why ",
            Name(starting),
            " did not finish starting (its lines in the log), or ",
            *_raise(kind, facts, "raise"),
        )
        if starting
        else _raise(kind, facts)
    )
    return Explanation("timeout", "error", "Time limit reached", why, fix)


def _setting_up(facts: Facts) -> str | None:
    """The extension the run was still setting up when it ended (``RunRecord.setting_up``: an MCP
    server that does not finish starting, say), or None once the run had started."""
    return facts.state.record.setting_up if facts.state else None


def _still_starting(extension: str) -> Words:
    return ("while it was still starting (setting up ", Name(extension), "), before its first request")


def _cancelled(facts: Facts) -> Explanation:
    turns = len(facts.state.ledger.turns) if facts.state else 0
    starting = _setting_up(facts)
    when = _still_starting(starting) if starting else (f"after {human.count(turns, 'turn')}",)
    why: Words = (
        "The run was cancelled ",
        *when,
        " (the workflow run was cancelled, or the process got a stop signal); what it did so far is kept.",
    )
    return Explanation("cancelled", "error", "Stopped before it finished", why)


def _invalid_output(facts: Facts) -> Explanation:
    error = facts.result.error or "the final answer does not match output-schema"
    schema: Words = (
        ("the ", Name("output-schema"), " input")
        if facts.audience == "action"
        else (Name("harness.output-schema"), " in the config")
    )
    return Explanation(
        "invalid_output",
        "error",
        "The answer did not match the output schema",
        ("The final answer failed the check: ", Verbatim(_after_colon(error), model=True), "."),
        ("Make the task ask for what ", *schema, " describes (the model's last answer is below), or loosen it."),
    )


def _after_colon(error: str) -> str:
    """The schema problems of ``harness/output_schema``'s error (after its first colon)."""
    return error.split(": ", 1)[1] if ": " in error else error


def _error(facts: Facts) -> Explanation:
    error = facts.result.error or "the run failed"
    return Explanation(
        "error",
        "error",
        "The run failed",
        (Verbatim(error.rstrip(".")), "."),
        ("Re-run; if it fails again, check the provider's status, the model name and the log.",),
    )


def _paused(facts: Facts) -> Explanation:
    if facts.audience == "action":
        fix: Words = (
            "Resume with the ",
            Name("workflow-checkpoint"),
            " and ",
            Name("workflow-decision"),
            " inputs.",
        )
    else:
        fix = ("Resume with ", Name("aw-harness workflow resume"), ".")
    why = ("The workflow waits for a review or was paused by a step; its section below says where.",)
    return Explanation("paused", "notice", "Workflow paused", why, fix)


def _skipped(facts: Facts) -> Explanation:
    why: Words = (Verbatim(facts.result.error or "the trigger guard refused the event"),)
    return Explanation("skipped", "notice", "Skipped", why)


def _failed(facts: Facts) -> Explanation:
    if facts.result.exit_code == 2:
        return invocation(facts)
    error = facts.result.error
    why: Words = (Verbatim(error.rstrip(".")), ".") if error else (f"The run ended with {facts.result.stop_reason}.",)
    return Explanation(facts.result.stop_reason, "error", "The run failed", why)


EXPLAINERS: dict[str, Explainer] = {
    "completed": _completed,
    **{kind.stop_reason: _budget for kind in BUDGET_KINDS if kind.gate != "deadline"},
    "timeout": _timeout,
    "cancelled": _cancelled,
    "invalid_output": _invalid_output,
    "error": _error,
    "credentials_refused": credentials_refused,
    "invocation_error": invocation,
    "sdk_load_error": invocation,
    "extension_error": invocation,
    "paused": _paused,
    "skipped": _skipped,
}
"""Stop reason -> its explainer; a reason not here is explained by ``_failed``. Every budget
kind's stop reason comes from its row (``run/budget_kinds.py``); ``timeout`` is the deadline's."""
