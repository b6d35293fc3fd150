"""What the kinds that only report share (a missing tool, missing data): short text fields,
recorded and shown (the run's step summary, ``apply --dry-run``, the apply job's report and step
summary), nothing written to GitHub. gh-aw's limits: 128 characters for the name, 256 for the
reason and context, 512 for alternatives (``safe_output_validation_config.go``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.kinds import common
from aw_action.safe_outputs.kinds.apply_api import Planning

Fields = Mapping[str, tuple[int, str]]
"""field -> (its limit in characters, what the agent writes there)."""


def schema(spec: Fields, required: list[str]) -> dict[str, Any]:
    properties = {name: common.string(about, limit) for name, (limit, about) in spec.items()}
    return common.object_schema(properties, required)


def validate(args: Mapping[str, Any], spec: Fields, required: list[str]) -> dict[str, Any]:
    record = {}
    for name, (limit, _) in spec.items():
        if args.get(name) is None and name not in required:
            continue
        record[name] = fields.text(args.get(name), name, max_chars=limit, single_line=False)
    if not record:
        raise fields.FieldError(f"give at least one of: {', '.join(spec)}")
    return record


def message(record: Mapping[str, Any], spec: Fields, planning: Planning) -> str:
    """``name: text; name: text`` in the fields' order, sanitised as bodies are."""
    parts = [f"{name}: {record[name]}" for name in spec if record.get(name)]
    return planning.text("; ".join(parts), fields.MESSAGE_MAX_CHARS)
