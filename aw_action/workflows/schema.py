"""Validation against ``workflow.schema.json`` (shipped with the package), with one-line errors.

The schema accepts every document pi-workflows accepts, so a pi-workflows file fails here only
for a real mistake; Pi-only features are refused afterwards by ``features.py``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

SCHEMA_FILE = "workflow.schema.json"


@lru_cache(maxsize=1)
def workflow_schema() -> dict[str, Any]:
    """The JSON Schema for workflow files (a package data file)."""
    text = resources.files("aw_action.workflows").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(workflow_schema())


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(error: ValidationError) -> tuple[tuple[str | int, ...], tuple[str | int, ...], str]:
    """(path shown, path whose line is reported, message) for one schema error."""
    while error.validator in ("oneOf", "anyOf") and error.context:
        error = best_match(error.context)
    path = tuple(error.absolute_path)
    kind, instance = error.validator, error.instance
    schema: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = set(schema.get("properties", {}))
        extra = sorted(k for k in instance if k not in known)
        if extra:
            return path, (*path, extra[0]), f"unknown property {extra[0]!r}"
    if kind == "required" and isinstance(error.validator_value, list):
        missing = [k for k in error.validator_value if isinstance(instance, dict) and k not in instance]
        if missing:
            return path, path, f"missing required property {missing[0]!r}"
    if "propertyNames" in error.absolute_schema_path:
        return path, (*path, str(instance)), f"{_short(instance)} is not an identifier (lowercase, digits, '-')"
    if kind == "pattern" and schema.get("pattern") == "^[a-z][a-z0-9-]{0,63}$":
        return path, path, f"{_short(instance)} is not an identifier (lowercase letters, digits and '-', max 64)"
    if kind == "pattern" and "$done" in str(schema.get("pattern")):
        return path, path, f"{_short(instance)} is not a step id, '$done' or '$pause'"
    if kind in ("const", "enum"):
        allowed = list(error.validator_value) if kind == "enum" else [error.validator_value]  # type: ignore[arg-type]
        return path, path, f"{_short(instance)} must be one of {', '.join(map(_short, allowed))}"
    if kind == "not" and path[-1:] == ("file",):
        return path, path, f"{_short(instance)} must be a relative path inside the workflow's folder"
    if kind == "not" and "timeoutMs" in str(schema):
        return path, path, "timeoutMs is only valid with provider 'plannotator'"
    if kind == "not" and "argsPrefixes" in str(schema):
        return path, path, "argsPrefix and argsPrefixes are mutually exclusive"
    if kind == "type":
        return path, path, f"{_short(instance)} must be of type {error.validator_value}"
    message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
    return path, path, message


def schema_errors(data: Any) -> list[tuple[tuple[str | int, ...], tuple[str | int, ...], str]]:
    """Every schema error as (path shown, path for the line, message), the most relevant first."""
    errors = list(_validator().iter_errors(data))
    if not errors:
        return []
    first = best_match(errors)
    ordered = [first, *(e for e in errors if e is not first)]
    return [_describe(e) for e in ordered]
