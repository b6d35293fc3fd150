"""The budget table: one row per kind drives the config, the action inputs, the gates, the
summary and the records. ``max-tool-calls`` is the kind added through the table alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aw_action.exits import InvocationError
from aw_action.github.action_inputs import ActionInputError, ActionInputs, env_name
from aw_action.github.plan import build_plan
from aw_action.run.budget_kinds import BUDGET_KINDS, KINDS_BY_NAME, resolve_limits
from aw_action.run.config import RunConfig
from tests.sinks.support import gfm, jsonl, scripted_run


def config(**budget: object) -> RunConfig:
    return RunConfig.model_validate({"engine": {"model": "faux/scripted"}, "harness": {"budget": budget}})


def test_every_kind_has_a_config_field_and_a_distinct_name_input_and_stop_reason() -> None:
    assert len({k.name for k in BUDGET_KINDS}) == len({k.action_input for k in BUDGET_KINDS}) == len(BUDGET_KINDS)
    for kind in BUDGET_KINDS:
        if kind.config_path[0] == "harness":
            value = 3 if kind.integer else 2.5
            assert kind.configured(config(**{kind.config_path[-1]: value})) == value
    assert KINDS_BY_NAME["tool_calls"].stop_reason == "max_tool_calls"


def test_limits_resolve_from_config_with_the_critical_percent_only_for_amounts() -> None:
    limits = resolve_limits(config(**{"max-tool-calls": 4, "max-effective-tokens": 1000}))
    assert limits["tool_calls"].limit == 4 and limits["tool_calls"].critical_percent == 100
    assert limits["effective_tokens"].critical_percent == 90
    assert limits["minutes"].limit == 20  # timeout-minutes always has a value


@pytest.mark.parametrize("value", [0, -1, 2.5, "many", float("inf")])
def test_max_tool_calls_must_be_a_positive_whole_number_in_config(value: object) -> None:
    with pytest.raises(ValueError):
        config(**{"max-tool-calls": value})


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("Infinity", "Infinity is not a number JSON allows"),
        ("NaN", "NaN is not a number JSON allows"),
        ("1e400", r"harness\.budget\.max-ai-credits"),
    ],
)
def test_non_finite_budgets_in_config_json_are_refused(raw: str, fragment: str, tmp_path: Path) -> None:
    from aw_action.config import ConfigSources, resolve_config

    path = tmp_path / "config.json"
    budget = '{"max-ai-credits": ' + raw + "}"
    path.write_text('{"engine": {"model": "faux/scripted"}, "harness": {"budget": ' + budget + "}}")
    with pytest.raises(InvocationError, match=fragment):
        resolve_config(ConfigSources(path), {})


@pytest.fixture
def clean_inputs(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in list(os.environ):
        if name.upper().startswith("INPUT_"):
            monkeypatch.delenv(name)
    return monkeypatch


def test_the_max_tool_calls_input_overrides_the_config(clean_inputs: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_inputs.setenv(env_name("max-tool-calls"), "7")
    clean_inputs.setenv(env_name("prompt"), "x")
    clean_inputs.setenv(env_name("model"), "faux/scripted")
    plan = build_plan(ActionInputs.from_env(), {"GITHUB_WORKSPACE": str(tmp_path)}, tmp_path)
    assert plan.config.harness.budget.max_tool_calls == 7


@pytest.mark.parametrize(("value", "fragment"), [("0", "greater than 0"), ("1.5", "valid integer"), ("inf", "")])
def test_a_bad_max_tool_calls_input_names_the_input(
    clean_inputs: pytest.MonkeyPatch, value: str, fragment: str
) -> None:
    clean_inputs.setenv(env_name("max-tool-calls"), value)
    with pytest.raises(ActionInputError) as info:
        ActionInputs.from_env()
    assert info.value.input == "max-tool-calls" and fragment in info.value.message


@pytest.mark.parametrize("name", ["max-effective-tokens", "max-ai-credits", "timeout-minutes"])
def test_non_finite_budget_inputs_name_the_input(clean_inputs: pytest.MonkeyPatch, name: str) -> None:
    clean_inputs.setenv(env_name(name), "inf")
    with pytest.raises(ActionInputError) as info:
        ActionInputs.from_env()
    assert info.value.input == name and "finite" in info.value.message


TOOL_TURNS = [
    {"text": f"Step {i}.", "tool_calls": [{"name": "bash", "arguments": {"command": f"echo step-{i}"}}]}
    for i in range(1, 6)
]


def test_max_tool_calls_stops_the_run_before_the_extra_call(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_TURNS, {"harness": {"budget": {"max-tool-calls": 2}}})
    assert run.returncode == 1, run.stderr
    result = run.result
    assert result["stop_reason"] == "max_tool_calls" and result["conclusion"] == "failure"
    assert result["tool_calls"] == 2 and result["turns"] == 2
    [stop] = run.events_named("budget_exceeded")
    assert stop["budget"] == "tool_calls" and stop["limit"] == 2 and stop["trigger"] == "max_tool_calls"
    [end] = run.events_named("session_end")
    assert end["stop_reason"] == "max_tool_calls" and end["tool_calls"] == 2
    results = [
        "".join(c["text"] for c in e["message"]["content"])
        for e in jsonl(run.output_dir / "session.jsonl")
        if e.get("type") == "message" and e["message"]["role"] == "toolResult"
    ]
    assert results[:2] == ["step-1", "step-2"]
    assert results[2:] == ["Blocked: the run's tool-call budget (2) is used up"]  # the third call never ran
    html = gfm((tmp_path / "summary.md").read_text())
    budget = html.split("<h4>Budget</h4>", 1)[1].split("</table>", 1)[0]
    assert "<td>Tool calls</td>" in budget and '<td align="right">2</td>' in budget
    assert "<h2>❌ Failure · Stopped by the tool-call limit</h2>" in html
    assert "2 of 2 tool calls used (100%); the next tool call was blocked before it ran." in html
    assert "3 tool calls (1 failed)" in html, "the blocked call is counted and marked failed"
    run_record = jsonl(run.output_dir / "aw_session.jsonl")[-2]
    assert run_record["type"] == "harness.run" and run_record["data"]["stopReason"] == "max_tool_calls"
    assert run_record["data"]["limits"]["tool_calls"] == 2


def test_a_run_within_its_tool_call_budget_completes(tmp_path: Path) -> None:
    script = [*TOOL_TURNS[:2], {"text": "Done."}]
    run = scripted_run(tmp_path, script, {"harness": {"budget": {"max-tool-calls": 2}}})
    assert run.returncode == 0, run.stderr
    assert run.result["tool_calls"] == 2 and run.result["stop_reason"] == "completed"
