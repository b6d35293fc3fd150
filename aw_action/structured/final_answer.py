"""Parse and validate a final answer against the run's output schema.

The answer is taken as JSON when the whole text is JSON, else from the first fenced block
labelled ``json`` (then any fenced block), else from the outermost ``{...}``/``[...]`` span, the
shapes models use. ``NaN``/``Infinity`` are not JSON and are refused. Errors are listed by
their place in the answer (``$.items[0].name``), at most ``MAX_LISTED_ERRORS``, each cut to a
readable length, so the corrective message stays small whatever the model sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aw_action.environment.strict_json import TooDeep, parse_json
from aw_action.lazy_dataclass import dataclass
from aw_action.run import record_table
from aw_action.security.records.record_guard import RecordWrites, write_record

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

# jsonschema (~90 ms with its dependencies) is imported where a schema is used, not here: this
# module's names (STRUCTURED_OUTPUT_FILE) are read by every run, most of which have no schema.

STRUCTURED_OUTPUT_FILE = record_table.STRUCTURED_OUTPUT.name
MAX_ANSWER_CHARS = 1_000_000
MAX_LISTED_ERRORS = 10
MAX_ERROR_CHARS = 300
MAX_SCHEMA_IN_MESSAGE_CHARS = 8_000
MAX_DEPTH = 64
"""Deeper answers are refused before validation: checking, redacting and saving them recurses."""

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)\n?[ \t]*```", re.DOTALL)


class OutputSchemaError(ValueError):
    """An unusable ``output-schema`` (an invocation error); the message starts with the field."""


class AnswerNotJson(ValueError):
    """No JSON value could be read from the answer; the message says why."""


def _loads(text: str) -> Any:
    return parse_json(text, finite=True, max_depth=MAX_DEPTH)


def load_output_schema(spec: str | Mapping[str, Any], base_dir: Path | None = None) -> dict[str, Any]:
    """The schema from a mapping, inline JSON text (starting with ``{``) or a file path
    (relative to ``base_dir``); it must be a JSON object and a valid JSON Schema."""
    if isinstance(spec, Mapping):
        schema: Any = dict(spec)
    elif spec.strip().startswith("{"):
        try:
            schema = _loads(spec)
        except ValueError as exc:
            raise OutputSchemaError(f"output-schema: inline schema is not valid JSON: {exc}") from None
    else:
        path = Path(spec.strip())
        path = path if path.is_absolute() or base_dir is None else base_dir / path
        try:
            schema = _loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise OutputSchemaError(f"output-schema: cannot read {path}: {exc}") from None
    if not isinstance(schema, dict):
        raise OutputSchemaError("output-schema: must be a JSON object (a JSON Schema)")
    from jsonschema import Draft202012Validator, SchemaError
    from jsonschema.validators import validator_for

    try:
        validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except SchemaError as exc:
        where = "".join(f"/{p}" for p in exc.path) or "/"
        raise OutputSchemaError(f"output-schema: not a valid JSON Schema at {where}: {_cut(exc.message)}") from None
    return schema


def _candidates(text: str) -> Iterator[str]:
    yield text
    fences = _FENCE.findall(text)
    yield from (body for label, body in fences if label.lower() in ("json", "jsonc", "json5"))
    yield from (body for label, body in fences if not label)
    for open_, close in (("{", "}"), ("[", "]")):
        start, end = text.find(open_), text.rfind(close)
        if 0 <= start < end:
            yield text[start : end + 1]


def extract_json(text: str) -> Any:
    """The JSON value the answer holds; ``AnswerNotJson`` when there is none."""
    if len(text) > MAX_ANSWER_CHARS:
        raise AnswerNotJson(f"the answer is {len(text):,} characters, over {MAX_ANSWER_CHARS:,}")
    stripped = text.strip()
    if not stripped:
        raise AnswerNotJson("the answer is empty")
    first_error = ""
    for candidate in _candidates(stripped):
        try:
            return _loads(candidate.strip())
        except TooDeep as exc:
            raise AnswerNotJson(f"it is {exc}") from None
        except ValueError as exc:
            first_error = first_error or str(exc)
    raise AnswerNotJson(f"it is not valid JSON ({_cut(first_error)})")


def _cut(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _where(error: ValidationError) -> str:
    out = "$"
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


@dataclass(frozen=True)
class AnswerCheck:
    """The outcome: ``ok`` with the parsed ``value``, or the ``errors`` found."""

    ok: bool
    value: Any = None
    errors: tuple[str, ...] = ()
    schema: Mapping[str, Any] | None = None
    not_json: bool = False

    def corrective_message(self) -> str:
        """What to send the model so its next answer validates (only for a failed check)."""
        if self.not_json:
            lead = f"Your final answer must be one JSON value that matches the output schema, but {self.errors[0]}."
        else:
            problems = "\n".join(f"- {e}" for e in self.errors)
            lead = f"Your final answer does not match the output schema:\n{problems}"
        schema = json.dumps(self.schema, indent=2, ensure_ascii=False) if self.schema is not None else ""
        shown = (
            f"\n\nThe schema:\n```json\n{schema}\n```"
            if schema and len(schema) <= MAX_SCHEMA_IN_MESSAGE_CHARS
            else "\n\n(The schema is too long to repeat; it is the one you were given.)"
        )
        return (
            f"{lead}{shown}\n\nReply with only the corrected JSON value (a ```json block is fine), "
            "no other text and no tool call."
        )


def answer_instructions(schema: Mapping[str, Any]) -> str:
    """What the task prompt gains when the run has an output schema: the answer's shape, up front."""
    text = json.dumps(schema, indent=2, ensure_ascii=False)
    shown = (
        f"```json\n{text}\n```"
        if len(text) <= MAX_SCHEMA_IN_MESSAGE_CHARS
        else f"```json\n{json.dumps(schema, separators=(',', ':'), ensure_ascii=False)}\n```"
    )
    return (
        "Your final answer (your last message, once the task is done) must be one JSON value that "
        f"validates against this JSON Schema, and nothing else:\n{shown}"
    )


def check_final_answer(text: str, schema: Mapping[str, Any]) -> AnswerCheck:
    """Parse ``text`` and validate it against ``schema`` (a schema ``load_output_schema`` accepted)."""
    try:
        value = extract_json(text)
    except AnswerNotJson as exc:
        return AnswerCheck(False, errors=(str(exc),), schema=schema, not_json=True)
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    cls = validator_for(schema, default=Draft202012Validator)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    try:
        found = sorted(validator.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    except RecursionError:  # a schema that recurses into itself faster than the answer nests
        return AnswerCheck(False, value=value, errors=("the answer is too deeply nested to check",), schema=schema)
    if not found:
        return AnswerCheck(True, value=value, schema=schema)
    errors = [f"at {_where(e)}: {_cut(e.message)}" for e in found[:MAX_LISTED_ERRORS]]
    if len(found) > MAX_LISTED_ERRORS:
        errors.append(f"... and {len(found) - MAX_LISTED_ERRORS} more")
    return AnswerCheck(False, value=value, errors=tuple(errors), schema=schema)


def write_structured_output(output_dir: Path, value: Any, records: RecordWrites | None = None) -> Path:
    """Save the validated value as ``structured-output.json`` (atomically; with the run's
    ``records``, into the output dir the run holds, its hash in the ledger)."""
    target = output_dir / STRUCTURED_OUTPUT_FILE
    text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    write_record(target, text.encode("utf-8"), records)
    return target
