"""An aw-harness extension: step down to a cheaper model as the budget runs out.

After every turn it looks at the run's amount budgets (``harness.budget.max-effective-tokens``,
``max-ai-credits``). Once one of them is used past ``STEP_DOWN_PERCENT`` percent of its limit
(default 50), it switches the session to ``STEP_DOWN_MODEL`` (default ``haiku``, any name the
catalog knows or ``provider/model``). The switch takes effect at the next save point: the request
in flight is never changed, the next one goes to the cheaper model, priced and limited as that
model; the step summary, the transcript and ``replay.jsonl`` record it.

A model the run cannot reach (no credentials for its provider; inside gh-aw, one AWF's proxy does
not route) is refused: the run goes on with the model it has, and the extension warns once.

Load it with ``harness.extensions`` (config.json) or the action's ``extensions`` input:
``./examples/budget-step-down/step_down.py`` (a path relative to the workspace).
"""

from __future__ import annotations

from typing import Any

from aw_action.extensions.api import ModelUnavailableError, UnknownModelError

USED = {
    "effective_tokens": lambda state: state.ledger.effective_tokens,
    "ai_credits": lambda state: state.ledger.ai_credits,
}
"""The amount budgets, and how much of each the run has used so far."""


def setup(api: Any) -> None:
    target = api.env.get("STEP_DOWN_MODEL", "").strip() or "haiku"
    percent = float(api.env.get("STEP_DOWN_PERCENT", "").strip() or 50)
    stepped = False

    def on_turn_end(event: Any, ctx: Any) -> None:
        nonlocal stepped
        if stepped:
            return
        for name, used_of in USED.items():
            limit = ctx.state.record.limits.get(name)
            used = used_of(ctx.state)
            if not limit or used is None or used < limit * percent / 100:
                continue
            stepped = True  # one attempt: a refused model is not asked for again every turn
            try:
                model = ctx.set_model(target)
            except (UnknownModelError, ModelUnavailableError) as exc:
                ctx.warn(f"budget-step-down: staying on {ctx.current_model.ref}: {exc}")
                return
            ctx.emit("step_down", budget=name, used=round(used, 2), limit=limit, model=model.ref)
            return

    api.on("turn_end", on_turn_end)
