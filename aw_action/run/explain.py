"""Why a run ended, said once: one explanation per stop reason, in the words of whoever started it.

``explain(result, audience)`` is the one place that turns a run's end into words: a title, one
sentence of why (with the number hit and the limit) and, when something can be changed, the fix
(the setting to change, named as the person who started the run sets it: an action input in the
action, a config.json key on the command line, a ``GH_AW_*`` variable in gh-aw mode). Every
reporter reads it: the step summary's header and callout (``sinks/summary.py``), the action's
closing annotation, the progress comment's last update (``sinks/progress.py``) and the CLI's
last line (``sinks/closing.py``).

An explanation is data, not text: its sentences are parts (``Name``: a setting, file or value
typed as written, code in Markdown; ``Verbatim``: text from elsewhere, an error message, made
inert in Markdown; plain strings: the harness's own words). ``plain()`` gives one line for logs;
``sinks/markdown.words`` renders the parts for GitHub.

The table is ``EXPLAINERS``: a stop reason's function, or ``_failed`` for any reason it lacks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from aw_action.ai.credentials import action_inputs, provider_variables
from aw_action.exits import MissingCredentialsError, SdkLoadError, Setting
from aw_action.run import human
from aw_action.run.budget_kinds import KINDS_BY_NAME, BudgetKind
from aw_action.run.record import Audience
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.run.time_budget import TimeBudget

Level = Literal["notice", "warning", "error"]


@dataclass(frozen=True)
class Name:
    """A setting, file, command or value as typed: ``code`` in Markdown, itself in plain text."""

    text: str


@dataclass(frozen=True)
class Verbatim:
    """Text the harness did not write (an error message, a provider's words): inert in Markdown."""

    text: str


Part = str | Name | Verbatim
Words = tuple[Part, ...]


def plain(words: Words) -> str:
    """The parts as one line of plain text."""
    return " ".join("".join(p if isinstance(p, str) else p.text for p in words).split())


@dataclass(frozen=True)
class Explanation:
    stop_reason: str
    level: Level
    """``notice``: the run did what was asked; ``warning``: it did, with something to look at;
    ``error``: it did not."""
    title: str
    """A few words, the harness's own (``Time limit reached``)."""
    why: Words
    """One sentence: what happened, with the figures."""
    fix: Words = ()
    """One sentence: what to change (empty when nothing can be)."""

    def plain(self) -> str:
        """``Title: why Fix: fix`` on one line."""
        fix = f" Fix: {plain(self.fix)}" if self.fix else ""
        return f"{self.title}: {plain(self.why)}{fix}"


@dataclass(frozen=True)
class Facts:
    """What an explainer reads: the result, its state (None before any session), the audience."""

    result: RunResult
    audience: Audience

    @property
    def state(self) -> RunState | None:
        return self.result.state

    @property
    def limits(self) -> Mapping[str, float]:
        return self.state.record.limits if self.state is not None else {}


Explainer = Callable[[Facts], Explanation]


def explain(result: RunResult, audience: Audience) -> Explanation:
    """The explanation of how ``result`` ended, for ``audience``."""
    facts = Facts(result, audience)
    return EXPLAINERS.get(result.stop_reason, _failed)(facts)


# ---- settings, named for the audience ------------------------------------------------------


def budget_setting(kind: BudgetKind, audience: Audience) -> Words:
    """Where ``audience`` sets ``kind``'s limit."""
    if audience == "action":
        return ("the ", Name(kind.action_input), " input")
    if audience == "gh-aw" and kind.gh_aw_env:
        return (Name(kind.gh_aw_env), " (the workflow's limit)")
    where = "config.json" if audience == "cli" else "the engine's config file (AW_HARNESS_CONFIG)"
    return (Name(kind.config_key), f" in {where}")


def setting_words(setting: Setting) -> Words:
    kinds = {"input": " input", "config": " in the config", "variable": " variable", "file": "", "argument": ""}
    return ("the " if setting.kind == "input" else "", Name(setting.name), kinds[setting.kind])


def _raise(kind: BudgetKind, facts: Facts) -> Words:
    limit = facts.limits.get(kind.name)
    now = f" (now {human.limit(kind, limit)})" if limit is not None else ""
    return ("Raise ", *budget_setting(kind, facts.audience), now, " or narrow the task.")


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
        kind = next((k for k in KINDS_BY_NAME.values() if k.stop_reason == facts.result.stop_reason), None)
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
    if trigger == "max_turns":
        return "the agent had not finished when its last turn ended."
    if trigger == "max_tool_calls":
        return "the next tool call was blocked before it ran."
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
    why = (
        f"The run stopped after {human.duration(elapsed)} of its {human.minutes(limit)} "
        f"({human.percent(elapsed, limit * 60)}): the harness stops {human.duration(margin)} before the limit "
        "so that its records and summary get written.",
    )
    return Explanation("timeout", "error", "Time limit reached", why, _raise(kind, facts))


def _cancelled(facts: Facts) -> Explanation:
    turns = len(facts.state.ledger.turns) if facts.state else 0
    why = (
        f"The run was cancelled after {human.count(turns, 'turn')} (the workflow run was cancelled, or the "
        "process got a stop signal); what it did so far is kept.",
    )
    return Explanation("cancelled", "error", "Cancelled", why)


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
        ("The final answer failed the check: ", Verbatim(_after_colon(error)), "."),
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


def _credentials_refused(facts: Facts) -> Explanation:
    error = facts.result.error or "the provider refused the credential"
    key = _key_words(facts)
    return Explanation(
        "credentials_refused",
        "error",
        "The provider refused the credentials",
        ("The model's provider refused the key: ", Verbatim(error.rstrip(".")), "."),
        ("Replace ", *key, " with a valid key that may use this model (not expired, revoked or out of quota)."),
    )


def _key_words(facts: Facts) -> Words:
    """The setting that holds the model's key, for the audience."""
    provider = facts.result.model.split("/", 1)[0]
    variables = provider_variables(provider)
    inputs = action_inputs()
    if facts.audience == "action":
        named = [inputs[v] for v in variables if v in inputs]
        if named:
            return ("the secret behind the ", Name(named[0]), " input")
    if variables:
        return ("the key in ", Name(variables[0]))
    return ("the key",)


def _invocation(facts: Facts) -> Explanation:
    """The run could not start: the error names what is wrong; the fix names what to change."""
    result = facts.result
    error = result.error or "the invocation is not valid"
    setting = result.setting
    why: Words = (Verbatim(error.rstrip(".")), ".")
    if setting is not None and setting.kind == "input":
        return Explanation(
            result.stop_reason,
            "error",
            f"Invalid input '{setting.name}'",
            why,
            ("Correct ", *setting_words(setting), " under the step's ", Name("with:"), ", then re-run."),
        )
    if isinstance(result.cause, MissingCredentialsError):
        return _no_key(result.cause, facts.audience)
    if isinstance(result.cause, SdkLoadError):
        module = result.cause
        why = ("The module ", Name(module.module), " could not be imported: ", Verbatim(module.detail.rstrip(".")), ".")
        fix: Words = (
            "Rebuild the action image (",
            Name("docker build --no-cache ."),
            ") or reinstall the package (",
            Name("pip install --force-reinstall aw-harness"),
            "), then re-run.",
        )
        return Explanation(result.stop_reason, "error", "The run could not start: a module is missing", why, fix)
    if result.stop_reason == "extension_error":
        fix = ("Reinstall the package or rebuild the action image: a built-in extension is broken.",)
        return Explanation(result.stop_reason, "error", "A built-in extension failed", why, fix)
    if setting is not None:
        return Explanation(
            result.stop_reason, "error", "The run could not start", why, ("Correct ", *setting_words(setting), ".")
        )
    return Explanation(result.stop_reason, "error", "The run could not start", why, _what_to_check(facts.audience))


def _no_key(cause: MissingCredentialsError, audience: Audience) -> Explanation:
    hint: Words = ("; ", Verbatim(cause.hint)) if cause.hint else ()
    why: Words = ("No key for model ", Name(cause.model), " was given", *hint, ".")
    inputs = action_inputs()
    named = [v for v in cause.variables if v in inputs]
    if audience == "action" and named:
        name, var = inputs[named[0]], named[0]
        others = [v for v in cause.variables if v not in inputs]
        rest: Words = (" (or ", Name(others[0]), " in the step's env)") if others else ()
        example = f"{name}: ${{{{ secrets.{var} }}}}"
        fix: Words = (
            "Set the ",
            Name(name),
            " input",
            *rest,
            ", e.g. ",
            Name(example),
            " under the step's ",
            Name("with:"),
            ".",
        )
    elif cause.variables:
        names: list[Part] = []
        for i, variable in enumerate(cause.variables):
            names += [" or " if i else "", Name(variable)]
        fix = ("Set ", *names, " in the environment.")
    else:
        fix = ("Give the run a credential for this model's provider.",)
    return Explanation("invocation_error", "error", "No credentials for the model", why, fix)


def _what_to_check(audience: Audience) -> Words:
    if audience == "action":
        return ("Check the step's inputs (", Name("with:"), ") and the files they name, then re-run.")
    if audience == "gh-aw":
        return ("Check the agent step's environment (", Name("GH_AW_*"), ", the engine's model), then re-run.")
    return ("Check the files ", Name("--config"), " and ", Name("--prompt"), " name, then re-run.")


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
        return _invocation(facts)
    error = facts.result.error
    why: Words = (Verbatim(error.rstrip(".")), ".") if error else (f"The run ended with {facts.result.stop_reason}.",)
    return Explanation(facts.result.stop_reason, "error", "The run failed", why)


EXPLAINERS: dict[str, Explainer] = {
    "completed": _completed,
    "budget_exceeded": _budget,
    "max_turns": _budget,
    "max_tool_calls": _budget,
    "timeout": _timeout,
    "cancelled": _cancelled,
    "invalid_output": _invalid_output,
    "error": _error,
    "credentials_refused": _credentials_refused,
    "invocation_error": _invocation,
    "sdk_load_error": _invocation,
    "extension_error": _invocation,
    "paused": _paused,
    "skipped": _skipped,
}
"""Stop reason -> its explainer; a reason not here is explained by ``_failed``."""
