"""The final answer as schema-checked JSON: parsing, validation, the corrective message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aw_action.structured import (
    STRUCTURED_OUTPUT_FILE,
    OutputSchemaError,
    check_final_answer,
    extract_json,
    load_output_schema,
    write_structured_output,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"enum": ["approve", "request-changes"]},
        "score": {"type": "integer", "minimum": 0, "maximum": 10},
        "issues": {
            "type": "array",
            "items": {"type": "object", "required": ["file"], "properties": {"file": {"type": "string"}}},
        },
    },
    "required": ["verdict", "score"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "text",
    [
        '{"verdict": "approve", "score": 9}',
        '  \n{"verdict": "approve", "score": 9}\n',
        'Here is the result:\n```json\n{"verdict": "approve", "score": 9}\n```\nThanks.',
        '```JSON\n{"verdict": "approve", "score": 9}\n```',
        '```\n{"verdict": "approve", "score": 9}\n```',
        'Result: {"verdict": "approve", "score": 9} as asked.',
        '```python\nprint(1)\n```\n```json\n{"verdict": "approve", "score": 9}\n```',
    ],
)
def test_answers_in_the_shapes_models_use_validate(text: str) -> None:
    check = check_final_answer(text, SCHEMA)
    assert check.ok and check.value == {"verdict": "approve", "score": 9} and check.errors == ()


def test_a_json_fence_wins_over_an_unlabelled_one() -> None:
    text = '```\n{"other": 1}\n```\n```json\n{"verdict": "approve", "score": 1}\n```'
    assert extract_json(text) == {"verdict": "approve", "score": 1}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "the answer is empty"),
        ("I approve this change.", "it is not valid JSON"),
        ('{"score": NaN}', "NaN is not a number JSON allows"),
        ('{"score": Infinity}', "Infinity is not a number JSON allows"),
        ('{"score": -1e400}', "beyond the numbers a float holds"),  # JSON's own spelling of a float too large
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("x" * 1_000_001, "over 1,000,000"),
    ],
)
def test_answers_that_are_not_json(text: str, reason: str) -> None:
    check = check_final_answer(text, SCHEMA)
    assert not check.ok and check.not_json and reason in check.errors[0]
    message = check.corrective_message()
    assert message.startswith("Your final answer must be one JSON value that matches the output schema, but ")
    assert '"verdict"' in message  # the schema is repeated for the model


def test_validation_errors_are_listed_by_place() -> None:
    text = json.dumps({"verdict": "maybe", "score": 11, "issues": [{"line": 3}], "extra": True})
    check = check_final_answer(text, SCHEMA)
    assert not check.ok and not check.not_json
    assert check.errors == (
        "at $: Additional properties are not allowed ('extra' was unexpected)",
        "at $.issues[0]: 'file' is a required property",
        "at $.score: 11 is greater than the maximum of 10",
        "at $.verdict: 'maybe' is not one of ['approve', 'request-changes']",
    )
    message = check.corrective_message()
    assert message.startswith("Your final answer does not match the output schema:\n- at $:")
    assert message.endswith(
        "Reply with only the corrected JSON value (a ```json block is fine), no other text and no tool call."
    )


def test_many_or_huge_errors_keep_the_message_small() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    check = check_final_answer(json.dumps(["x" * 10_000] * 50), schema)
    assert len(check.errors) == 11 and check.errors[-1] == "... and 40 more"
    assert all(len(e) < 320 for e in check.errors)
    assert len(check.corrective_message()) < 5_000


def test_a_long_schema_is_not_repeated() -> None:
    schema = {"type": "object", "description": "d" * 10_000}
    message = check_final_answer("[]", schema).corrective_message()
    assert "too long to repeat" in message and "d" * 100 not in message


def test_formats_are_checked() -> None:
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date"}}}
    assert not check_final_answer('{"when": "yesterday"}', schema).ok
    assert check_final_answer('{"when": "2026-11-30"}', schema).ok


def test_schemas_load_inline_from_a_file_or_a_mapping(tmp_path: Path) -> None:
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    assert load_output_schema(json.dumps(SCHEMA)) == SCHEMA
    assert load_output_schema("schema.json", base_dir=tmp_path) == SCHEMA
    assert load_output_schema(str(tmp_path / "schema.json")) == SCHEMA
    assert load_output_schema(SCHEMA) == SCHEMA


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ('{"type": ', "output-schema: inline schema is not valid JSON"),
        ("missing.json", "output-schema: cannot read"),
        ('{"type": "objekt"}', "output-schema: not a valid JSON Schema at /type:"),
        (
            '{"properties": {"a": {"minimum": "zero"}}}',
            "output-schema: not a valid JSON Schema at /properties/a/minimum:",
        ),
        ("[1]", "output-schema: cannot read"),
    ],
)
def test_unusable_schemas_are_invocation_errors(tmp_path: Path, spec: str, message: str) -> None:
    with pytest.raises(OutputSchemaError) as err:
        load_output_schema(spec, base_dir=tmp_path)
    assert str(err.value).startswith(message), str(err.value)


def test_a_schema_file_that_is_not_an_object(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text("[1, 2]")
    with pytest.raises(OutputSchemaError, match="must be a JSON object"):
        load_output_schema("s.json", base_dir=tmp_path)


def test_the_validated_value_is_written_to_the_output_dir(tmp_path: Path) -> None:
    path = write_structured_output(tmp_path / "out", {"verdict": "approve", "score": 9, "note": "é"})
    assert path == tmp_path / "out" / STRUCTURED_OUTPUT_FILE
    assert json.loads(path.read_text(encoding="utf-8")) == {"verdict": "approve", "score": 9, "note": "é"}


def test_a_deeply_nested_answer_is_refused_without_exhausting_the_stack() -> None:
    recursive = {"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"}
    assert check_final_answer("[" * 64 + "]" * 64, recursive).ok
    for depth in (65, 900, 5000):
        check = check_final_answer("[" * depth + "]" * depth, {})
        assert not check.ok and check.not_json, depth
        assert "nested" in check.errors[0]


def test_the_prompt_states_the_schema() -> None:
    from aw_action.structured import answer_instructions

    text = answer_instructions({"type": "object", "required": ["verdict"]})
    assert "validates against this JSON Schema" in text and '"required": [\n    "verdict"\n  ]' in text
