"""A safe-output request (tool arguments, CLI flags or a record read back) -> a normalised record.

The same rules run when the agent asks (so a refusal reaches it as a tool error it can act on)
and again in the apply job (a record file is agent-writable, so it is never trusted). Each
kind's own rules are in its module (``kinds/``); here the parts every kind shares: the kind
must be known and configured, fields a kind does not take are refused, and gh-aw's ``secrecy``,
``integrity`` and ``temporary_id`` are accepted and dropped, so gh-aw-written records still
validate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aw_action.safe_outputs.config import SafeOutputsConfig
from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds import BY_TYPE
from aw_action.safe_outputs.kinds.base import KindConfig, RequestError, SafeOutputKind

IGNORED_FIELDS = frozenset({"secrecy", "integrity", "temporary_id"})


def kind_config(record_type: str, config: SafeOutputsConfig) -> tuple[SafeOutputKind[Any], KindConfig]:
    """The kind and its config, or ``RequestError`` when the kind is unknown or not configured."""
    kind = BY_TYPE.get(record_type)
    if kind is None:
        raise RequestError(f"unknown safe output type {record_type!r} (known: {', '.join(BY_TYPE)})")
    cfg = config.kind(record_type)
    if cfg is None:
        raise RequestError(f"{record_type} is not enabled: safe-outputs.{kind.key} is not configured")
    return kind, cfg


def validate_request(record_type: str, args: Mapping[str, Any], config: SafeOutputsConfig) -> dict[str, Any]:
    """The record for an agent's request (``type`` first, then its fields)."""
    kind, cfg = kind_config(record_type, config)
    unknown = sorted(set(args) - kind.fields - IGNORED_FIELDS)
    if unknown:
        name = unknown[0].encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate, escaped
        raise RequestError(f"{name}: not a field of {record_type} (fields: {', '.join(sorted(kind.fields))})")
    try:
        return {"type": record_type, **kind.validate(args, cfg)}
    except FieldError as exc:
        raise RequestError(str(exc)) from None


def validate_record(record: Mapping[str, Any], config: SafeOutputsConfig) -> dict[str, Any]:
    """A record read back from the file: the request rules plus the recorder's own fields."""
    record_type = str(record.get("type", ""))
    kind = BY_TYPE.get(record_type)
    system = kind.system_fields if kind is not None else frozenset()
    args = {k: v for k, v in record.items() if k != "type" and k not in system}
    out = validate_request(record_type, args, config)
    assert kind is not None, "validate_request refused an unknown kind"
    try:
        return {**out, **kind.recorded(record)}
    except FieldError as exc:
        raise RequestError(str(exc)) from None
