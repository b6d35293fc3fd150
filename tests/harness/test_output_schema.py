"""``output-schema`` on the scripted model: the final answer is checked after the prompt, corrected
by at most two corrective prompts, and a run whose answer never matches ends ``invalid_output``."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from aw_action.harness.invocation import Harness
from aw_action.run.result import Outcome, RunResult
from aw_action.structured import STRUCTURED_OUTPUT_FILE
from tests.conftest import base_env, run_cli, write_run_files

SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"enum": ["bug", "feature"]}, "score": {"type": "integer", "minimum": 0}},
    "required": ["verdict", "score"],
    "additionalProperties": False,
}
GOOD = '{"verdict": "bug", "score": 3}'


def config(schema: Any = SCHEMA, **harness: Any) -> dict[str, Any]:
    return {"engine": {"id": "aw", "model": "faux/scripted"}, "harness": {"output-schema": schema, **harness}}


async def run(tmp: Path, script: list[dict[str, Any]], cfg: dict[str, Any] | None = None) -> tuple[RunResult, str]:
    c, p = write_run_files(tmp, cfg or config(), "Classify the issue.", script=script)
    stderr = io.StringIO()
    env = base_env(tmp, GITHUB_STEP_SUMMARY=str(tmp / "summary.md"))
    result = await Harness(c, p, env, stderr=stderr).run()
    return result, stderr.getvalue()


def user_texts(tmp: Path) -> list[tuple[str, str]]:
    """(source, text) of every user message in the transcript."""
    out = []
    for line in (tmp / "out" / "session.jsonl").read_text().splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "user":
            content = message["content"]
            text = "".join(c.get("text", "") for c in content) if isinstance(content, list) else content
            out.append((message.get("source", ""), text))
    return out


async def test_a_valid_first_answer_becomes_the_structured_output(tmp_path: Path) -> None:
    result, _ = await run(tmp_path, [{"text": f"```json\n{GOOD}\n```"}])
    assert result.exit_code == 0 and result.stop_reason == "completed"
    data = result.to_json()
    assert data["structured_output"] == {"verdict": "bug", "score": 3}
    saved = tmp_path / "out" / STRUCTURED_OUTPUT_FILE
    assert json.loads(saved.read_text()) == {"verdict": "bug", "score": 3}
    assert str(saved) in result.files
    [(_, first)] = user_texts(tmp_path)
    assert first.startswith("Classify the issue.") and '"additionalProperties": false' in first
    assert "matched `output-schema` at the first answer" in (tmp_path / "summary.md").read_text()


async def test_a_number_too_large_for_a_float_is_corrected_not_a_crash(tmp_path: Path) -> None:
    """``1e400`` is valid JSON text but no float holds it: read as infinity, it passed a
    ``number`` schema and then failed the structured output's write, and the run raised past
    ``Harness.run()`` with no result. The model's answer is text the harness must survive: the
    answer is refused as not JSON it can keep, and the model is asked again."""
    schema = {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]}
    result, _ = await run(tmp_path, [{"text": '{"score": -1e400}'}, {"text": '{"score": 2.5}'}], config(schema))
    assert result.exit_code == 0 and result.stop_reason == "completed", result.error
    assert result.to_json()["structured_output"] == {"score": 2.5}
    corrective = user_texts(tmp_path)[1][1]
    assert "beyond the numbers a float holds" in corrective


async def test_an_invalid_answer_is_corrected_by_a_corrective_prompt(tmp_path: Path) -> None:
    script = [{"text": '{"verdict": "maybe", "score": -1}'}, {"text": GOOD}]
    result, stderr = await run(tmp_path, script)
    assert result.exit_code == 0, result.error
    assert result.to_json()["structured_output"] == {"verdict": "bug", "score": 3}
    assert result.to_json()["final_message"] == GOOD
    sources = [source for source, _ in user_texts(tmp_path)]
    assert sources == ["prompt", "output-schema"]
    corrective = user_texts(tmp_path)[1][1]
    assert "$.score" in corrective and "$.verdict" in corrective and "no tool call" in corrective
    warnings = [json.loads(x) for x in stderr.splitlines() if x.startswith('{"') and '"warning"' in x]
    assert any("corrective prompt 1 of 2" in w["message"] for w in warnings)
    assert result.state is not None and [p.source for p in result.state.record.prompts] == ["prompt", "output-schema"]
    assert "after 1 corrective prompt;" in (tmp_path / "summary.md").read_text()


async def test_an_answer_that_never_matches_ends_invalid_output(tmp_path: Path) -> None:
    script = [{"text": "It is a bug."}, {"text": '{"verdict": "bug"}'}, {"text": "[1, 2]"}, {"text": GOOD}]
    result, _ = await run(tmp_path, script)
    assert (result.stop_reason, result.conclusion, result.exit_code) == ("invalid_output", "failure", 1)
    assert Outcome.of("invalid_output") == Outcome("failure", "invalid_output", 1)
    data = result.to_json()
    # the unchecked answer is not handed on as the run's answer (final-message: completed runs only)
    assert data["structured_output"] is None and data["final_message"] == ""
    assert "[1, 2]" in (tmp_path / "out" / "session.jsonl").read_text()  # the transcript keeps it
    assert "after 2 corrective prompts" in (data["error"] or "") and "is not of type 'object'" in data["error"]
    assert not (tmp_path / "out" / STRUCTURED_OUTPUT_FILE).exists()
    assert [source for source, _ in user_texts(tmp_path)] == ["prompt", "output-schema", "output-schema"]
    assert "stop reason `invalid_output`" in (tmp_path / "summary.md").read_text()


async def test_a_budget_stop_during_a_correction_keeps_its_own_stop_reason(tmp_path: Path) -> None:
    cfg = config(budget={"max-turns": 1})
    result, _ = await run(tmp_path, [{"text": "not json"}, {"text": GOOD}], cfg)
    assert result.stop_reason == "max_turns", result.error
    assert result.to_json()["structured_output"] is None


async def test_the_schema_may_be_a_file_next_to_config_json(tmp_path: Path) -> None:
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    result, _ = await run(tmp_path, [{"text": GOOD}], config("schema.json"))
    assert result.to_json()["structured_output"] == {"verdict": "bug", "score": 3}


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "nonsense"}, "harness.output-schema: not a valid JSON Schema at /type"),
        ("missing.json", "harness.output-schema: cannot read"),
        ("{not json", "harness.output-schema: inline schema is not valid JSON"),
        (["a"], "harness.output-schema"),
    ],
)
def test_an_unusable_schema_is_an_invocation_error_naming_the_field(tmp_path: Path, schema: Any, message: str) -> None:
    c, p = write_run_files(tmp_path, config(schema), script=[{"text": GOOD}])
    done = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert done.returncode == 2
    assert message in done.stderr and message in done.result["error"]
    assert not (tmp_path / "out" / "session.jsonl").exists(), "no session may start"


def test_the_cli_prints_the_structured_output_in_its_result(tmp_path: Path) -> None:
    c, p = write_run_files(tmp_path, config(), script=[{"text": "Sure."}, {"text": GOOD}])
    done = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.result["structured_output"] == {"verdict": "bug", "score": 3}
    assert list(done.result)[-1] == "structured_output"
    assert str(tmp_path / "out" / STRUCTURED_OUTPUT_FILE) in done.result["files"]


def test_without_a_schema_the_result_has_no_structured_output_key(tmp_path: Path) -> None:
    c, p = write_run_files(tmp_path, {"engine": {"id": "aw", "model": "faux/scripted"}}, script=[{"text": GOOD}])
    done = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert done.returncode == 0 and "structured_output" not in done.result


async def test_a_hostile_answer_ends_the_run_cleanly(tmp_path: Path) -> None:
    deep = "[" * 900 + "]" * 900
    result, stderr = await run(tmp_path, [{"text": deep}, {"text": deep}, {"text": "x" * 1_100_000}], config({}))
    assert result.stop_reason == "invalid_output" and result.exit_code == 1
    assert "the answer is 1,100,000 characters, over 1,000,000" in (result.error or "")
    assert stderr.count("nested deeper than 64 levels") == 2, "one warning per corrective prompt"


async def test_a_secret_in_the_answer_never_reaches_the_structured_output(tmp_path: Path) -> None:
    token = "ghs_StructuredSecret0123456789abcdef"
    c, p = write_run_files(tmp_path, config({"type": "object"}), script=[{"text": f'{{"leak": "{token}"}}'}])
    result = await Harness(c, p, base_env(tmp_path, GITHUB_TOKEN=token), stderr=io.StringIO()).run()
    assert result.exit_code == 0
    assert result.to_json()["structured_output"] == {"leak": "***"}
    assert token not in (tmp_path / "out" / STRUCTURED_OUTPUT_FILE).read_text()


async def test_a_file_that_cannot_be_written_degrades_the_run_but_keeps_the_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import aw_action.structured

    def full(output_dir: Path, value: Any, records: Any = None) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(aw_action.structured, "write_structured_output", full)
    result, _ = await run(tmp_path, [{"text": GOOD}])
    assert result.exit_code == 0 and result.to_json()["structured_output"] == {"verdict": "bug", "score": 3}
    assert result.record().degraded == ["structured-output"]
    assert "No space left on device" in (tmp_path / "summary.md").read_text()


def test_the_file_name_is_the_structured_modules(tmp_path: Path) -> None:
    from aw_action.harness import output_schema

    assert output_schema.STRUCTURED_OUTPUT_FILE == STRUCTURED_OUTPUT_FILE
