"""A budget refusal from outside the harness: which budget, and the figures the proxy states."""

from __future__ import annotations

import json

import pytest

from aw_action.run.external_budget import Refusal, refusal

AWF_BODY = {
    "error": {
        "type": "ai_credits_limit_exceeded",
        "message": "Maximum AI credits exceeded (1006.01 / 1000).",
        "total_ai_credits": 1006.01,
        "max_ai_credits": 1000,
        "hard_cap": False,
    }
}  # gh-aw-firewall guards/ai-credits-guard.js; gh-aw-formats §6


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (f"Error code: 403 - {json.dumps(AWF_BODY)}", Refusal("ai_credits", 1006.01, 1000.0)),
        ("ai_credits_limit_exceeded: Maximum AI credits exceeded (12.5 / 10).", Refusal("ai_credits", 12.5, 10.0)),
        ('{"error":{"type":"effective_tokens_limit_exceeded","max_effective_tokens":5e6}}',
         Refusal("effective_tokens", None, 5e6)),
        ("ai_credits_limit_exceeded", Refusal("ai_credits", None, None)),
        (None, Refusal("ai_credits", None, None)),
        ("ai_credits_limit_exceeded (1e999 / 1e999)", Refusal("ai_credits", None, None)),
    ],
)  # fmt: skip
def test_refusal(message: str | None, expected: Refusal) -> None:
    assert refusal(message) == expected
