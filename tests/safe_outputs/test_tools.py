"""The agent-facing tools: only configured kinds, gh-aw's shapes, limits in the descriptions,
and every refusal (bad field, over max, label not allowed) a tool error with no record."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aw_action.agent.tools import ToolContext, ToolError
from aw_action.safe_outputs import CONFIG_FILE, RECORDS_FILE, safe_output_tools
from aw_action.safe_outputs.records import RecordLog
from tests.safe_outputs.support import call, execute, records, tools_by_name

DATA = Path(__file__).parent / "data" / "gh_aw_safe_outputs_tools.json"
GH_AW_TOOLS = {t["name"]: t for t in json.loads(DATA.read_text())}

CONFIG: dict[str, Any] = {
    "create-issue": {"title-prefix": "[bot] ", "labels": ["automated"], "allowed-labels": ["bug", "docs"], "max": 2},
    "add-comment": {"max": 1},
    "add-labels": {"allowed": ["bug", "needs-info"], "max": 1},
    "noop": None,
}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "ws").mkdir()
    return ToolContext(cwd=tmp_path / "ws", output_dir=tmp_path / "out")


def make(ctx: ToolContext, config: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    tools = safe_output_tools(config if config is not None else CONFIG, ctx.output_dir, ctx.cwd, env={}, **kw)
    return tools_by_name(tools)


async def test_only_configured_kinds_become_tools_with_gh_aw_names(ctx: ToolContext) -> None:
    tools = make(ctx)
    assert list(tools) == ["create_issue", "add_comment", "add_labels", "noop"]
    assert (ctx.output_dir / CONFIG_FILE).is_file()
    assert make(ctx, {"noop": None}).keys() == {"noop"}


def test_no_tools_in_gh_aw_mode_or_without_config(tmp_path: Path) -> None:
    assert safe_output_tools(CONFIG, tmp_path / "out", tmp_path, env={"GITHUB_AW": "true"}) == []
    assert not (tmp_path / "out").exists()
    assert safe_output_tools({}, tmp_path / "out", tmp_path, env={}) == []


def test_schemas_keep_gh_aw_argument_shapes(ctx: ToolContext) -> None:
    tools = make(ctx, {**CONFIG, "add-comment": {"target": "*"}, "create-pull-request": None})
    for name, tool in tools.items():
        jsonschema.Draft202012Validator.check_schema(tool.parameters)
        reference = GH_AW_TOOLS[name]["inputSchema"]
        assert tool.parameters["additionalProperties"] is False
        assert set(tool.parameters["required"]) >= set(reference.get("required", []))
        for prop, schema in tool.parameters["properties"].items():
            assert prop in reference["properties"], f"{name}.{prop} is not a gh-aw field"
            assert schema["type"] == reference["properties"][prop]["type"], f"{name}.{prop}"


def test_descriptions_state_the_limits(ctx: ToolContext) -> None:
    tools = make(ctx, {**CONFIG, "create-pull-request": {"max": 2, "title-prefix": "[pr] "}, "max-patch-size": 64})
    issue = tools["create_issue"].description
    assert "At most 2 issues per run" in issue and '"[bot] "' in issue
    assert "automated" in issue and "bug, docs" in issue
    assert "At most 1 comment per run" in tools["add_comment"].description
    assert "triggered this run" in tools["add_comment"].description
    assert "bug, needs-info" in tools["add_labels"].description
    pr = tools["create_pull_request"].description
    assert "At most 2 pull requests per run" in pr and "64 KiB" in pr and '"[pr] "' in pr
    assert "item_number" not in tools["add_comment"].parameters["required"]


async def test_create_issue_appends_one_gh_aw_record(ctx: ToolContext) -> None:
    tools = make(ctx)
    args = {"title": " Crash on start ", "body": "Steps...", "labels": ["Bug"]}
    result = await call(tools["create_issue"], args, ctx)
    expected = {"type": "create_issue", "title": "Crash on start", "body": "Steps...", "labels": ["bug"]}
    assert records(ctx.output_dir) == [expected]
    payload = json.loads(result.content[0].text)
    assert payload["result"] == "success" and payload["used"] == 1 and payload["max"] == 2
    line = (ctx.output_dir / RECORDS_FILE).read_text()
    assert line.endswith("\n") and line.count("\n") == 1 and ": " not in line  # compact, like JSON.stringify


async def test_going_over_max_is_a_tool_error_and_no_record(ctx: ToolContext) -> None:
    tools = make(ctx)
    for i in range(2):
        await call(tools["create_issue"], {"title": f"t{i}", "body": "b"}, ctx)
    with pytest.raises(ToolError, match=r"limit reached: 2 of 2 create_issue .*safe-outputs.create-issue.max"):
        await call(tools["create_issue"], {"title": "t3", "body": "b"}, ctx)
    assert len(records(ctx.output_dir)) == 2


async def test_the_limit_counts_records_already_in_the_file(ctx: ToolContext) -> None:
    tools = make(ctx)
    log = RecordLog(ctx.output_dir)
    with log.locked():
        log.append({"type": "add-comment", "body": "written from bash"})  # gh-aw dash spelling counts too
    with pytest.raises(ToolError, match="limit reached: 1 of 1 add_comment"):
        await call(tools["add_comment"], {"body": "second"}, ctx)


async def test_concurrent_calls_never_exceed_max(ctx: ToolContext) -> None:
    tools = make(ctx)
    calls = [call(tools["create_issue"], {"title": f"t{i}", "body": "b"}, ctx) for i in range(12)]
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    assert sum(1 for o in outcomes if isinstance(o, ToolError)) == 10
    assert len(records(ctx.output_dir)) == 2


@pytest.mark.parametrize(
    ("labels", "error"),
    [
        (["enhancement"], "label 'enhancement' is not allowed (allowed: bug, docs)"),
        (["-bug"], "starts with '-'"),
        (["bug,docs"], "contains a comma"),
        (["bug\nurgent"], "one line without control characters"),
        (["x" * 51], "over the limit of 50"),
        ([""], "must not be empty"),
        (["bug"] * 21, "21 labels, over the limit of 20"),
    ],
)
async def test_label_injection_is_refused(ctx: ToolContext, labels: list[str], error: str) -> None:
    with pytest.raises(ToolError, match=error.replace("(", r"\(").replace(")", r"\)")):
        await call(make(ctx)["create_issue"], {"title": "t", "body": "b", "labels": labels}, ctx)
    assert records(ctx.output_dir) == []


async def test_add_labels_refuses_labels_outside_allowed(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="label 'wontfix' is not allowed"):
        await call(make(ctx)["add_labels"], {"labels": ["bug", "wontfix"]}, ctx)
    assert records(ctx.output_dir) == []


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"title": "t", "body": "x" * 60_001}, "body: 60,001 characters, over the limit of 60,000"),
        ({"title": "t" * 257, "body": "b"}, "title: 257 characters, over the limit of 256"),
        ({"title": "two\nlines", "body": "b"}, "title: must be one line"),
        ({"title": "bell\x07", "body": "b"}, "title: must be one line"),
        ({"title": "t", "body": "bad \ud800 unicode"}, "body: contains invalid Unicode"),
        ({"title": "\udfff", "body": "b"}, "title: contains invalid Unicode"),
        ({"title": "t", "body": "nul \x00 byte"}, "body: contains a NUL character"),
        ({"title": "   ", "body": "b"}, "title: must not be empty"),
    ],
)
async def test_hostile_text_is_refused_with_the_field_named(ctx: ToolContext, args: dict[str, Any], error: str) -> None:
    with pytest.raises(ToolError, match=error):
        await call(make(ctx)["create_issue"], args, ctx)
    assert records(ctx.output_dir) == []


async def test_a_body_at_the_limit_and_ansi_text_are_recorded_raw(ctx: ToolContext) -> None:
    body = "\x1b[31mred\x1b[0m " + "x" * (60_000 - 13)
    await call(make(ctx)["create_issue"], {"title": "t", "body": body}, ctx)
    assert records(ctx.output_dir)[0]["body"] == body  # sanitised when applied, not when recorded


async def test_fields_outside_the_schema_are_refused_even_without_the_loop(ctx: ToolContext) -> None:
    tool = make(ctx)["create_issue"]
    with pytest.raises(jsonschema.ValidationError):
        await call(tool, {"title": "t", "body": "b", "assignees": ["me"]}, ctx)
    with pytest.raises(ToolError, match="assignees: not a field of create_issue"):
        await execute(tool, {"title": "t", "body": "b", "assignees": ["me"]}, ctx)


@pytest.mark.parametrize(
    ("target", "args", "outcome"),
    [
        ("triggering", {"body": "hi", "item_number": 5}, "item_number: not allowed; safe-outputs.add-comment.target"),
        (7, {"body": "hi", "item_number": 5}, "so it goes to #7"),
        ("*", {"body": "hi"}, "item_number: required"),
        ("*", {"body": "hi", "item_number": -1}, "must be a positive issue or pull request number"),
        ("*", {"body": "hi", "item_number": 1.5}, "must be a positive issue or pull request number"),
        ("*", {"body": "hi", "item_number": "12abc"}, "must be a positive issue or pull request number"),
        ("*", {"body": "hi", "item_number": "12"}, {"type": "add_comment", "body": "hi", "item_number": 12}),
        ("*", {"body": "hi", "item_number": 9.0}, {"type": "add_comment", "body": "hi", "item_number": 9}),
    ],
)
async def test_comment_targets(ctx: ToolContext, target: Any, args: dict[str, Any], outcome: Any) -> None:
    tool = make(ctx, {"add-comment": {"target": target}})["add_comment"]
    if isinstance(outcome, str):
        with pytest.raises(ToolError, match=outcome):
            await execute(tool, args, ctx)
        assert records(ctx.output_dir) == []
    else:
        await execute(tool, args, ctx)
        assert records(ctx.output_dir) == [outcome]


async def test_item_number_nan_and_bool_are_refused(ctx: ToolContext) -> None:
    tool = make(ctx, {"add-labels": {"target": "*"}})["add_labels"]
    for bad in (float("nan"), float("inf"), True, 0, 2**40):
        with pytest.raises(ToolError, match="item_number"):
            await execute(tool, {"labels": ["x"], "item_number": bad}, ctx)
    assert records(ctx.output_dir) == []


async def test_noop_records_its_message(ctx: ToolContext) -> None:
    await call(make(ctx)["noop"], {"message": "All checks passed"}, ctx)
    assert records(ctx.output_dir) == [{"type": "noop", "message": "All checks passed"}]


async def test_secrets_the_run_knows_never_reach_a_record(ctx: ToolContext) -> None:
    secret = "ghp_SuperSecretValue123456"
    tools = make(ctx, scrub=lambda text: text.replace(secret, "***"))
    await call(tools["create_issue"], {"title": "t", "body": f"token is {secret}"}, ctx)
    assert secret not in (ctx.output_dir / RECORDS_FILE).read_text()
    assert records(ctx.output_dir)[0]["body"] == "token is ***"
