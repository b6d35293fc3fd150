"""Model catalog resolution, usage normalisation and prices from the genai-prices snapshot."""

from __future__ import annotations

import pytest

from aw_action.ai.catalog import UnknownModelError, provider_specs, resolve_model
from aw_action.ai.credentials import provider_variables
from aw_action.ai.pricing import cost_usd
from aw_action.ai.types import Usage
from aw_action.ai.usage import from_anthropic, from_openai_chat, from_openai_responses


@pytest.mark.parametrize(
    ("name", "ref", "api"),
    [
        ("sonnet", "anthropic/claude-sonnet-4-6", "anthropic-messages"),
        ("claude-sonnet-4.6", "anthropic/claude-sonnet-4-6", "anthropic-messages"),
        ("opus", "anthropic/claude-opus-4-6", "anthropic-messages"),
        ("haiku", "anthropic/claude-haiku-4-5", "anthropic-messages"),
        ("gpt-5", "openai/gpt-5", "openai-responses"),
        ("codex", "openai/gpt-5-codex", "openai-responses"),
        ("gpt-4o", "openai/gpt-4o", "openai-completions"),
        ("github/openai/gpt-4.1", "github/openai/gpt-4.1", "openai-completions"),
        ("claude-haiku-4-5", "anthropic/claude-haiku-4-5", "anthropic-messages"),
    ],
)
def test_aliases_and_ids_resolve(name: str, ref: str, api: str) -> None:
    model = resolve_model(name)
    assert (model.ref, model.api) == (ref, api)


def test_provider_model_is_accepted_as_is() -> None:
    model = resolve_model("anthropic/claude-future-9")
    assert (model.provider, model.id, model.api, model.context_window) == (
        "anthropic",
        "claude-future-9",
        "anthropic-messages",
        128000,
    )
    assert resolve_model("mycorp/llm-1").provider == "mycorp"


def test_unknown_bare_name_lists_close_matches() -> None:
    with pytest.raises(UnknownModelError, match=r"sonet.*did you mean: .*sonnet"):
        resolve_model("sonet")


def test_catalog_limits_are_data() -> None:
    model = resolve_model("sonnet")
    assert model.context_window == 200000 and model.max_output_tokens == 64000 and model.reasoning


def test_provider_specs_name_their_variables_and_no_sdk_default_urls() -> None:
    specs = provider_specs()
    assert provider_variables("anthropic") == ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    assert specs["anthropic"].base_url_env == "ANTHROPIC_BASE_URL"
    assert specs["openai"].base_url_env == "OPENAI_BASE_URL" and specs["openai"].default_base_url is None
    assert provider_variables("github") == ("COPILOT_GITHUB_TOKEN", "GITHUB_TOKEN")
    assert specs["github"].base_url_env == "GITHUB_MODELS_BASE_URL"
    assert specs["github"].default_base_url == "https://models.github.ai/inference"


def test_usage_normalisation_never_counts_a_token_twice() -> None:
    a = from_anthropic(
        {"input_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20, "output_tokens": 9}
    )
    assert (a.input, a.cache_read, a.cache_write, a.output, a.total) == (5, 100, 20, 9, 134)
    c = from_openai_chat(
        {
            "prompt_tokens": 130,
            "completion_tokens": 40,
            "prompt_tokens_details": {"cached_tokens": 100},
            "completion_tokens_details": {"reasoning_tokens": 25},
        }
    )
    assert (c.input, c.cache_read, c.output, c.reasoning, c.total) == (30, 100, 15, 25, 170)
    r = from_openai_responses(
        {
            "input_tokens": 130,
            "output_tokens": 40,
            "input_tokens_details": {"cached_tokens": 100},
            "output_tokens_details": {"reasoning_tokens": 25},
        }
    )
    assert (r.input, r.cache_read, r.output, r.reasoning, r.total) == (30, 100, 15, 25, 170)
    assert a.raw is not None and a.raw["cache_read_input_tokens"] == 100


def test_price_of_a_known_model() -> None:
    # Claude Sonnet 4.5 list prices per million tokens: $3 input, $15 output, $0.30 cache read, $3.75 cache write.
    usage = Usage(input=1_000, output=1_000, cache_read=10_000, cache_write=2_000)
    cost = cost_usd(resolve_model("claude-sonnet-4.5"), usage)
    assert cost == pytest.approx(0.003 + 0.015 + 0.003 + 0.0075)


def test_reasoning_tokens_are_priced_as_output() -> None:
    model = resolve_model("gpt-4o")
    plain = cost_usd(model, Usage(input=1000, output=500))
    split = cost_usd(model, Usage(input=1000, output=200, reasoning=300))
    assert plain is not None and plain == split


def test_unknown_price_is_none_never_zero() -> None:
    assert cost_usd(resolve_model("mycorp/llm-1"), Usage(input=10, output=10)) is None
    assert cost_usd(resolve_model("mycorp/llm-1"), Usage()) == 0.0


def test_github_models_priced_by_catalog_reference() -> None:
    model = resolve_model("github/openai/gpt-4.1")
    assert cost_usd(model, Usage(input=1000, output=1000), price_provider="openai") == cost_usd(
        resolve_model("gpt-4.1"), Usage(input=1000, output=1000)
    )
