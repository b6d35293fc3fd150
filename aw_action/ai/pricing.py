"""Cost of one request from a maintained price catalog (genai-prices, bundled snapshot, offline).

``cost_usd`` returns None when the catalog has no price for the model: an unknown price is
unknown, never 0. Zero tokens cost 0 whatever the price. genai-prices counts cached tokens
inside ``input_tokens`` and reasoning inside ``output_tokens``, so the normalised classes are
added back up before the lookup.
"""

from __future__ import annotations

import logging
import warnings

from aw_action.ai.types import Model, Usage

log = logging.getLogger(__name__)


def _price(model_ref: str, provider_id: str, usage_key: tuple[int, int, int, int]) -> float | None:
    try:
        from genai_prices import Usage as PriceUsage
        from genai_prices import calc_price
    except ImportError:  # the catalog is a dependency; without it prices are unknown
        return None
    total_input, cache_read, cache_write, total_output = usage_key
    usage = PriceUsage(
        input_tokens=total_input,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        output_tokens=total_output,
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = calc_price(usage, model_ref, provider_id=provider_id)
    except (LookupError, ValueError) as exc:
        log.debug("no price for %s/%s: %s", provider_id, model_ref, exc)
        return None
    return float(result.total_price)


def cost_usd(
    model: Model, usage: Usage, response_model: str | None = None, price_provider: str | None = None
) -> float | None:
    """USD cost of ``usage`` on ``model``; tries the catalog's ``price_ref``, then the model id
    the API reported (often a dated snapshot), then the catalog id."""
    if usage.total == 0:
        return 0.0
    key = (
        usage.input + usage.cache_read + usage.cache_write,
        usage.cache_read,
        usage.cache_write,
        usage.output + usage.reasoning,
    )
    provider = model.price_provider or price_provider or model.provider
    for ref in dict.fromkeys(r for r in (model.price_ref, response_model, model.id) if r):
        price = _price(ref, provider, key)
        if price is not None:
            return price
    return None
