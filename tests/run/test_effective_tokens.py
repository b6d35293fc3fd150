"""Effective tokens and the multiplier data, checked against gh-aw's formula and AWF records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aw_action.ai.types import Usage
from aw_action.config.environment import env_limit
from aw_action.exits import InvocationError
from aw_action.run.budget_kinds import KINDS_BY_NAME, Limit
from aw_action.run.effective_tokens import (
    Multipliers,
    base_weighted_tokens,
    credits,
    effective_tokens,
    parse_overrides,
)

FIXTURE = Path(__file__).parent / "data" / "awf-steering-token-usage.jsonl"
"""gh-aw pkg/cli/testdata/model_routing_golden/claude-awf-steering-notices (AWF token-usage.jsonl)."""


def test_weights_follow_gh_aw_including_cache_writes() -> None:
    usage = Usage(input=100, cache_read=1000, output=10, reasoning=5, cache_write=50)
    assert base_weighted_tokens(usage) == pytest.approx(100 + 0.1 * 1000 + 4 * 10 + 4 * 5 + 50)
    assert effective_tokens(usage, 6.0) == pytest.approx(6.0 * 310)


def test_base_weighted_tokens_of_real_awf_records() -> None:
    records = [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]
    agent = [r for r in records if r["purpose"] == ""]
    usage = Usage(
        input=agent[1]["input_tokens"],
        output=agent[1]["output_tokens"],
        cache_read=agent[1]["cache_read_tokens"],
        cache_write=agent[1]["cache_write_tokens"],
    )
    # 2 input, 285 output, 58798 cache read, 584 cache write (the record that carried ai_credit 80)
    assert base_weighted_tokens(usage) == pytest.approx(2 + 4 * 285 + 5879.8 + 584)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-sonnet-4-6", 9.0),  # catalog ids use dashes, the registry has "claude-sonnet-4.6"
        ("anthropic/claude-sonnet-4.6", 9.0),
        ("CLAUDE-OPUS-4-6", 27.0),
        ("gpt-5-mini", 0.33),
        ("gpt-5-mini-2025-08-07", 0.33),  # longest "key-" prefix
        ("gpt-4.1-2025-04-14", 1.0),
        ("openai/gpt-4.1", 1.0),
        ("o3-mini", 0.5),
    ],
)
def test_multiplier_lookup(model: str, expected: float) -> None:
    assert Multipliers().lookup(model) == expected


def test_unknown_model_has_no_multiplier_and_defaults_to_one() -> None:
    m = Multipliers()
    assert m.lookup("scripted") is None and m.get("scripted") == 1.0
    assert m.lookup("gpt-5x") is None  # a prefix only counts at a dash boundary


def test_overrides_replace_and_add_entries() -> None:
    m = Multipliers(parse_overrides('{"gpt-5": 2.5, "my-model": 0.2}'))
    assert m.get("gpt-5") == 2.5 and m.get("my-model-v2") == 0.2 and m.get("o3") == 3.0


@pytest.mark.parametrize("raw", ["[1]", '{"a": "x"}', '{"a": -1}', '{"a": true}', "{bad"])
def test_malformed_overrides_are_rejected(raw: str) -> None:
    with pytest.raises(ValueError):
        parse_overrides(raw)


def test_credits_are_cents_and_unknown_cost_stays_unknown() -> None:
    assert credits(0.25) == pytest.approx(25.0)
    assert credits(None) is None


def test_limit_gates() -> None:
    limit = Limit(KINDS_BY_NAME["effective_tokens"], 1000, critical_percent=90)
    assert not limit.exceeded(899) and limit.exceeded(900)
    assert limit.percent(250) == 25


@pytest.mark.parametrize(("raw", "expected"), [(None, None), ("", None), ("250", 250.0), (" 1.5 ", 1.5)])
def test_limit_from_env(raw: str | None, expected: float | None) -> None:
    assert env_limit("GH_AW_MAX_AI_CREDITS", raw) == expected


@pytest.mark.parametrize("raw", ["0", "-3", "abc", "inf", "nan", "1e400", "-inf"])
def test_limit_from_env_rejects_nonsense_naming_the_variable(raw: str) -> None:
    with pytest.raises(InvocationError, match=r"^GH_AW_MAX_AI_CREDITS: expected a positive"):
        env_limit("GH_AW_MAX_AI_CREDITS", raw)


def test_credits_and_summed_costs_read_as_decimals_without_losing_a_real_digit() -> None:
    from aw_action.run.ledger import RequestRecord, UsageLedger

    assert credits(0.0972) == 9.72 and credits(0.1 + 0.2) == 30.0 and credits(0.000123456789) == 0.01234568
    ledger = UsageLedger()
    for i, cost in enumerate((0.1, 0.2, 0.0000025)):
        ledger.record_request(
            RequestRecord("t", f"r{i}", "p", "m", "agent", "ok", True, Usage(input=1), 1, 1.0, cost, credits(cost), 1)
        )
    assert ledger.cost_usd == 0.3000025 and ledger.ai_credits == 30.00025
