"""A tool call's arguments checked against the tool's JSON schema, as ``jsonschema.validate``
checks them (the schema itself checked, the best-matching error reported), with the schema's
validator built once per schema rather than on every call (checking the schema against its
metaschema was most of a call's validation cost: bench/PROFILE.md).

``jsonschema`` is imported at the first call, not at start: ~35 ms that would delay the first
request (bench/).
"""

from __future__ import annotations

from typing import Any

MAX_KEPT = 256
_validators: dict[int, tuple[dict[str, Any], Any]] = {}
"""id of a schema -> the schema (held, so the id stays its own) and its validator."""


def _validator(schema: dict[str, Any]) -> Any:
    entry = _validators.get(id(schema))
    if entry is None or entry[0] is not schema:
        from jsonschema.validators import validator_for

        cls = validator_for(schema)
        cls.check_schema(schema)  # a bad schema raises SchemaError, as jsonschema.validate does
        if len(_validators) >= MAX_KEPT:  # a process hosting many runs (the tests) sees many tools
            _validators.clear()
        entry = _validators[id(schema)] = (schema, cls(schema))
    return entry[1]


def argument_error(schema: dict[str, Any], args: dict[str, Any]) -> str | None:
    """Why ``args`` do not fit ``schema`` (the best-matching error's message); None when they do."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator(schema).iter_errors(args))
    return None if error is None else str(error.message)
