"""The action's gate before a run: who triggered it (``trigger_guard``), and the event text the
prompt may carry (``security/event_context``).

``trigger_decision`` applies the ``allowed-actor-roles`` and ``allowed-bots`` inputs with the
``github-token`` input; it never raises. A refusal is not an error: ``skipped_result`` is the run
that did not start (conclusion ``skipped``, exit 0, ``error`` says why) and
``skipped_summary`` its step summary. ``event_appendix`` is the fenced event context for the
first message when the ``event-context`` input is on, else ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping

from aw_action.environment.runner import RunnerFacts
from aw_action.github.action_inputs import ActionInputs
from aw_action.github.event import TriggerEvent
from aw_action.github.trigger_guard import TriggerDecision, check_trigger, parse_bots, parse_roles
from aw_action.run.result import RunResult
from aw_action.security.untrusted_text.event_context import event_context

EVENT_CONTEXT_SOURCE = "event-context"


def trigger_decision(
    inputs: ActionInputs, event: TriggerEvent, env: Mapping[str, str], runner: RunnerFacts
) -> TriggerDecision:
    checked = {**env, "GITHUB_TOKEN": inputs.github_token or env.get("GITHUB_TOKEN") or ""}
    return check_trigger(
        event.name,
        event.payload,
        checked,
        allowed_roles=parse_roles(inputs.allowed_actor_roles),
        allowed_bots=parse_bots(inputs.allowed_bots),
        runner=runner,
    )


def skipped_result(decision: TriggerDecision, model: str | None) -> RunResult:
    return RunResult.ended("skipped", model or "unknown", None, f"trigger guard: {decision.reason}")


def skipped_summary(decision: TriggerDecision, event: TriggerEvent) -> str:
    return (
        "## ⏭️ Skipped · Not started\n\n"
        f"> [!NOTE]\n> **Not started.** The `{event.name}` event's actor may not start a paid run: "
        f"{' '.join(decision.reason.split())}. No model request was made. Allow them with the "
        "`allowed-actor-roles` or `allowed-bots` input.\n"
    )


def event_appendix(inputs: ActionInputs, event: TriggerEvent) -> tuple[str, str] | None:
    if not inputs.event_context:
        return None
    context = event_context(event.name, event.payload)
    return (EVENT_CONTEXT_SOURCE, context.text) if context is not None else None
