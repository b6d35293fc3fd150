"""What a budget buys: a session replayed through the cost tracker's own arithmetic.

The worked examples in docs/budgets-steering-repair.md come from here (and its test checks them):
a session whose first request sends ``PREFIX`` tokens (system prompt, tool definitions, task)
and whose every turn adds an answer of ``answer`` tokens and a tool output of ``tool_output``
tokens. Each request reads what the previous one sent from the provider's cache (``cached``) and
pays the rest as new input; the gate (``extensions/budget_rules.py``) lets a request go only if
its worst case (the whole prompt at full price plus a minimal answer) fits what is left, and none
after ``critical`` percent of the limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from aw_action.ai.catalog import provider_specs, resolve_model
from aw_action.ai.pricing import cost_usd
from aw_action.ai.types import Usage
from aw_action.extensions.budget_rules import MIN_ANSWER_TOKENS, CreditCharge, EffectiveTokenCharge
from aw_action.run.effective_tokens import Multipliers, effective_tokens

PREFIX = 3_000
"""System prompt and the four tool definitions (about 1,900 tokens with the tools preamble) and
a task of about 1,100 tokens."""


@dataclass(frozen=True)
class Session:
    turns: int
    effective_tokens: float
    usd: float
    stopped_by: str


def replay(
    model_name: str,
    *,
    max_effective_tokens: float | None = None,
    max_ai_credits: float | None = None,
    answer: int = 400,
    tool_output: int = 1_500,
    cached: bool = True,
    critical: float = 90.0,
    turns: int = 200,
) -> Session:
    model = resolve_model(model_name)
    spec = provider_specs().get(model.provider)
    multiplier = Multipliers().get(model.id)
    charges = []
    if max_effective_tokens is not None:
        charges.append((EffectiveTokenCharge(multiplier), max_effective_tokens, "effective_tokens"))
    if max_ai_credits is not None:
        charges.append((CreditCharge(model, spec.price_provider if spec else None), max_ai_credits, "ai_credits"))
    et = usd = 0.0
    sent = PREFIX
    for turn in range(turns):
        prompt = PREFIX + turn * (answer + tool_output)
        for charge, limit, name in charges:
            used = et if name == "effective_tokens" else 100 * usd
            if used >= limit * critical / 100 or used + charge.worst(prompt, MIN_ANSWER_TOKENS) > limit:
                return Session(turn, et, usd, name)
        read = min(sent, prompt) if cached and turn else 0
        if cached and model.api == "anthropic-messages":  # cache breakpoints: the new part is written
            usage = Usage(cache_write=prompt - read, cache_read=read, output=answer)
        else:
            usage = Usage(input=prompt - read, cache_read=read, output=answer)
        et += effective_tokens(usage, multiplier)
        usd += cost_usd(model, usage, price_provider=spec.price_provider if spec else None) or 0.0
        sent = prompt
    return Session(turns, et, usd, "")


def budget_for(model_name: str, turns: int, kind: str = "effective_tokens", **kw: object) -> float:
    """The smallest budget (effective tokens, or credits to the cent) that pays for ``turns``."""
    scale = 1.0 if kind == "effective_tokens" else 100.0
    low, high = 0, 1
    key = "max_effective_tokens" if kind == "effective_tokens" else "max_ai_credits"
    while replay(model_name, **{key: high / scale}, turns=turns, **kw).turns < turns:  # type: ignore[arg-type]
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        if replay(model_name, **{key: mid / scale}, turns=turns, **kw).turns >= turns:  # type: ignore[arg-type]
            high = mid
        else:
            low = mid
    return high / scale
