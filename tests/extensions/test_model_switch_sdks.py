"""A model switch with the real SDKs against local wire-format servers, driven by the
budget-step-down example extension (``examples/budget-step-down/step_down.py``) in a real CLI run:
the request after the save point goes out under the new model's name, the budget gate prices and
caps it as the new model, its cost is booked at the new model's prices, the compaction threshold
follows the new model's context window, the previous model's signed reasoning is not sent, and the
switch is in the JSONL stream, the transcript, ``replay.jsonl`` and the step summary. A model
whose provider has no credentials is refused: the run goes on with the model it has."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from aw_action.ai.catalog import resolve_model
from aw_action.ai.pricing import cost_usd
from aw_action.ai.types import Usage
from aw_action.extensions.budget_rules import CreditCharge
from aw_action.run.effective_tokens import USD_PER_CREDIT, credits
from tests.conftest import REPO, CliRun, base_env, run_cli, write_run_files
from tests.servers import anthropic, openai
from tests.servers.wire import Reply, WireServer
from tests.sinks.support import event_validator

EXTENSION = REPO / "examples" / "budget-step-down" / "step_down.py"
ANTHROPIC_KEY = "sk-ant-test-StepDown0123456789"
OPENAI_KEY = "sk-proj-StepDownTest0123456789"
SIGNATURE = "SIG-written-by-sonnet-0123456789"
ENCRYPTED = "gAAAA-encrypted-by-gpt-5-0123456789"


def step_down_run(tmp: Path, server: WireServer, config: dict[str, Any], replies: list[Reply], **env: str) -> CliRun:
    """The CLI on ``config`` with the step-down extension stepping down after the first turn."""
    (tmp / "ws").mkdir(exist_ok=True)
    shutil.copy(EXTENSION, tmp / "ws" / "step_down.py")
    config.setdefault("harness", {})["extensions"] = ["./step_down.py"]
    c, p = write_run_files(tmp, config, prompt="Look around, then answer.")
    server.script(*replies)
    environ = base_env(tmp, STEP_DOWN_PERCENT="1", GITHUB_STEP_SUMMARY=str(tmp / "summary.md"), **env)
    return run_cli(["--config", str(c), "--prompt", str(p)], environ)


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_anthropic_steps_down_at_a_save_point_priced_and_capped_as_the_new_model(tmp_path: Path) -> None:
    sonnet, haiku = resolve_model("claude-sonnet-4.6"), resolve_model("haiku")
    first_usage, second_usage = Usage(input=2000, output=300), Usage(input=2600, output=40)
    spent = cost_usd(sonnet, first_usage)
    assert spent is not None
    limit = round((spent + 0.10) / USD_PER_CREDIT, 2)  # about $0.10 left after the first request
    replies = [
        anthropic.stream_reply(
            thinking=("the files first", SIGNATURE),
            text="Listing.",
            tool_calls=[("bash", {"command": "echo hello"})],
            use=anthropic.usage(input=2000, output=300),
            model="claude-sonnet-4-6",
        ),
        anthropic.stream_reply(text="Done.", use=anthropic.usage(input=2600, output=40), model="claude-haiku-4-5"),
    ]
    config = {"engine": {"model": "claude-sonnet-4.6"}, "harness": {"budget": {"max-ai-credits": limit}}}
    with WireServer() as server:
        run = step_down_run(
            tmp_path,
            server,
            config,
            replies,
            ANTHROPIC_API_KEY=ANTHROPIC_KEY,
            ANTHROPIC_BASE_URL=server.url,
            STEP_DOWN_MODEL="haiku",
        )
    assert run.returncode == 0, run.stderr[-3000:]
    first, second = server.requests
    assert (first.json["model"], second.json["model"]) == ("claude-sonnet-4-6", "claude-haiku-4-5")

    # the previous model's reasoning and its signature are not sent to the new one
    assert SIGNATURE.encode() not in second.body
    blocks = [b["type"] for m in second.json["messages"] if isinstance(m["content"], list) for b in m["content"]]
    assert "thinking" not in blocks and "redacted_thinking" not in blocks and "tool_use" in blocks

    # the gate caps the second request as Haiku: what the budget left pays for at Haiku's prices
    cap = run.events_named("budget_cap")[-1]
    room = limit - (credits(spent) or 0.0)
    as_haiku = CreditCharge(haiku).max_answer(cap["input_tokens"], room, haiku.max_output_tokens)
    as_sonnet = CreditCharge(sonnet).max_answer(cap["input_tokens"], room, sonnet.max_output_tokens)
    assert second.json["max_tokens"] == cap["max_tokens"] == as_haiku > as_sonnet

    # and books it at Haiku's prices
    booked = run.events_named("request_end")
    assert [r["model"] for r in booked] == ["claude-sonnet-4-6", "claude-haiku-4-5"]
    assert booked[1]["cost_usd"] == cost_usd(haiku, second_usage) != cost_usd(sonnet, second_usage)

    # recorded: the JSONL stream, the transcript, replay.jsonl, the step summary
    [change] = run.events_named("model_change")
    event_validator().validate(change)
    assert (change["from"], change["to"], change["reasoning_dropped"]) == (
        "anthropic/claude-sonnet-4-6",
        "anthropic/claude-haiku-4-5",
        1,
    )
    [entry] = [e for e in records(run.output_dir / "session.jsonl") if e["type"] == "model_change"]
    assert (entry["provider"], entry["modelId"], entry["previous"]) == ("anthropic", "claude-haiku-4-5", change["from"])
    turns = [t["model"] for t in run.events_named("turn_end")]
    assert turns == ["anthropic/claude-sonnet-4-6", "anthropic/claude-haiku-4-5"], "each turn names its model"
    unified = [r for r in records(run.output_dir / "aw_session.jsonl") if r.get("type") == "assistant.turn_end"]
    assert [r["data"]["model"] for r in unified] == turns
    lines = records(run.output_dir / "replay.jsonl")
    assert [line["type"] for line in lines] == ["header", "reply", "model_change", "reply", "end"]
    assert (lines[2]["turn"], lines[2]["to_model"]) == (2, "anthropic/claude-haiku-4-5")
    summary = (tmp_path / "summary.md").read_text()
    assert "`anthropic/claude-sonnet-4-6` → `anthropic/claude-haiku-4-5` from turn 2" in summary
    assert ANTHROPIC_KEY not in run.stderr + run.stdout + summary


def test_openai_steps_down_to_a_model_with_a_smaller_window_and_output_limit(tmp_path: Path) -> None:
    """gpt-5 (Responses API, 400k window, 128k output) to gpt-4o-mini (Chat Completions, 128k
    window, 16k output): the second request is a chat request with gpt-4o-mini's output limit, and
    the compaction threshold (half the window) is judged against gpt-4o-mini's window from then
    on: 100k tokens of context are over it, where 150k were under gpt-5's."""
    replies = [
        openai.responses_stream_reply(
            reasoning=("check first", ENCRYPTED),
            tool_calls=[("bash", {"command": "echo one"})],
            use=openai.responses_usage(input=150_000, output=200),
        ),
        openai.chat_stream_reply(
            tool_calls=[("bash", {"command": "echo two"})], use=openai.chat_usage(prompt=100_000, completion=50)
        ),
        openai.chat_stream_reply(text="Done.", use=openai.chat_usage(prompt=100_100, completion=5)),
    ]
    config = {
        "engine": {"model": "openai/gpt-5"},
        "harness": {
            "budget": {"max-effective-tokens": 10_000_000},
            "context": {"compaction": "sliding-window", "compaction-threshold": 0.5},
        },
    }
    with WireServer() as server:
        run = step_down_run(
            tmp_path,
            server,
            config,
            replies,
            OPENAI_API_KEY=OPENAI_KEY,
            OPENAI_BASE_URL=server.url + "/v1",
            STEP_DOWN_MODEL="openai/gpt-4o-mini",
        )
    assert run.returncode == 0, run.stderr[-3000:]
    first, second, third = server.requests
    assert (first.path, first.json["model"], first.json["max_output_tokens"]) == ("/v1/responses", "gpt-5", 128_000)
    assert (second.path, second.json["model"]) == ("/v1/chat/completions", "gpt-4o-mini")
    assert second.json["max_completion_tokens"] == 16_384 == third.json["max_completion_tokens"]
    assert ENCRYPTED.encode() not in second.body + third.body
    over = [w for w in run.warnings if "context compaction (threshold)" in w["message"]]
    assert len(over) == 1, "under gpt-5's window after turn 1, over gpt-4o-mini's after turn 2"
    [change] = run.events_named("model_change")
    assert (change["from"], change["to"]) == ("openai/gpt-5", "openai/gpt-4o-mini")


def test_a_model_without_credentials_is_refused_and_the_run_goes_on(tmp_path: Path) -> None:
    replies = [
        anthropic.stream_reply(text="Listing.", tool_calls=[("bash", {"command": "echo hi"})]),
        anthropic.stream_reply(text="Done."),
    ]
    config = {"engine": {"model": "claude-sonnet-4.6"}, "harness": {"budget": {"max-ai-credits": 1}}}
    with WireServer() as server:
        run = step_down_run(
            tmp_path,
            server,
            config,
            replies,
            ANTHROPIC_API_KEY=ANTHROPIC_KEY,
            ANTHROPIC_BASE_URL=server.url,
            STEP_DOWN_MODEL="openai/gpt-5-mini",
        )
    assert run.returncode == 0, run.stderr[-3000:]
    assert [r.json["model"] for r in server.requests] == ["claude-sonnet-4-6", "claude-sonnet-4-6"]
    [warning] = [w for w in run.warnings if "budget-step-down" in w["message"]]
    assert "staying on anthropic/claude-sonnet-4-6: no credentials for model openai/gpt-5-mini" in warning["message"]
    assert "OPENAI_API_KEY" in warning["message"]
    assert not run.events_named("model_change")
