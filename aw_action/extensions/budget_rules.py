"""What the next model request can cost at worst, and how large an answer a budget still pays for.

Pure rules beside the cost tracker (``cost_tracker.py``), which applies them before every
request. The worst case of a request is its input, every token charged at the dearest input
class (nothing read from a cache), plus ``max_tokens`` of output:

- effective tokens: ``multiplier × (1.0 × input + 4.0 × max_tokens)`` (output and reasoning both
  weigh 4.0, and ``max_tokens`` bounds both: Anthropic's thinking and OpenAI's reasoning tokens
  count inside it);
- AI credits: the catalog price of ``input`` tokens (as plain input or as a cache write,
  whichever costs more) plus ``max_tokens`` output tokens, in credits (1 credit = $0.01).

``Charge.max_answer(input_tokens, room)`` is the largest ``max_tokens`` whose worst case fits in
``room``. The cost tracker sends ``min(configured max_tokens, what every budget pays for)``, and
refuses the request when that is below ``MIN_ANSWER_TOKENS``: an answer that short could not
even hold one tool call with a path, so the request would only be cut and wasted.
"""

from __future__ import annotations

import math
from typing import Protocol

from aw_action.ai.pricing import cost_usd
from aw_action.ai.types import Model, Usage
from aw_action.lazy_dataclass import dataclass
from aw_action.run.effective_tokens import USD_PER_CREDIT, WEIGHTS

MIN_ANSWER_TOKENS = 256
"""The floor: a request is sent only if every budget still pays for an answer this long."""


class Charge(Protocol):
    """How one amount budget is charged for a request (its units: effective tokens or credits)."""

    def worst(self, input_tokens: int, output_tokens: int) -> float:
        """The most ``input_tokens`` in and ``output_tokens`` out can cost."""
        ...

    def max_answer(self, input_tokens: int, room: float, ceiling: int) -> int:
        """The largest output (at most ``ceiling``) whose worst case fits in ``room``; -1 when
        not even the input alone fits."""
        ...


@dataclass(frozen=True)
class EffectiveTokenCharge:
    multiplier: float

    def worst(self, input_tokens: int, output_tokens: int) -> float:
        in_weight = max(WEIGHTS["input"], WEIGHTS["cache_write"])
        out_weight = max(WEIGHTS["output"], WEIGHTS["reasoning"])
        return self.multiplier * (in_weight * input_tokens + out_weight * output_tokens)

    def max_answer(self, input_tokens: int, room: float, ceiling: int) -> int:
        if self.worst(input_tokens, 0) > room:
            return -1
        if self.multiplier <= 0:
            return ceiling
        per_token = self.worst(0, 1)
        answer = min(ceiling, math.floor((room - self.worst(input_tokens, 0)) / per_token))
        while answer > 0 and self.worst(input_tokens, answer) > room:  # float rounding
            answer -= 1
        return max(answer, 0)


@dataclass(frozen=True)
class CreditCharge:
    """Credits at catalog prices; ``price_provider`` as the provider setup prices responses."""

    model: Model
    price_provider: str | None = None

    def _credits(self, usage: Usage) -> float | None:
        usd = cost_usd(self.model, usage, price_provider=self.price_provider)
        return None if usd is None else usd / USD_PER_CREDIT

    def priced(self) -> bool:
        return self._credits(Usage(input=1000, output=1000)) is not None

    def worst(self, input_tokens: int, output_tokens: int) -> float:
        plain = self._credits(Usage(input=input_tokens, output=output_tokens))
        written = self._credits(Usage(cache_write=input_tokens, output=output_tokens))
        known = [c for c in (plain, written) if c is not None]
        return max(known) if known else math.inf

    def max_answer(self, input_tokens: int, room: float, ceiling: int) -> int:
        if self.worst(input_tokens, 0) > room:
            return -1
        if self.worst(input_tokens, ceiling) <= room:
            return ceiling
        low, high = 0, ceiling  # worst(low) fits, worst(high) does not: prices grow with output
        while high - low > 1:
            mid = (low + high) // 2
            if self.worst(input_tokens, mid) <= room:
                low = mid
            else:
                high = mid
        return low
