"""A safe-output request (tool arguments, CLI flags or a record read back) -> a normalised record.

The same rules run when the agent asks (so a refusal reaches it as a tool error it can act on)
and again in the apply job (a record file is agent-writable, so it is never trusted). Fields a
kind does not take are refused; gh-aw's ``secrecy``, ``integrity`` and ``temporary_id`` are
accepted and dropped, so gh-aw-written records still validate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.config import KINDS, AddComment, AddLabels, KindConfig, SafeOutputsConfig
from aw_action.safe_outputs.fields import FieldError

IGNORED_FIELDS = frozenset({"secrecy", "integrity", "temporary_id"})
PR_SYSTEM_FIELDS = frozenset({"patch_path", "base_commit"})
"""Set by the recorder when it captures the patch, never by the agent."""


class RequestError(ValueError):
    """A request that cannot become a record; the message is what the agent reads."""


def _title(args: Mapping[str, Any]) -> str:
    return fields.text(args.get("title"), "title", max_chars=fields.TITLE_MAX_CHARS, single_line=True)


def _body(args: Mapping[str, Any]) -> str:
    return fields.text(args.get("body"), "body", max_chars=fields.BODY_MAX_CHARS)


def _target(args: Mapping[str, Any], cfg: AddComment | AddLabels, key: str) -> dict[str, Any]:
    """``item_number`` is required with ``target: '*'`` and refused otherwise (the target is fixed)."""
    given = args.get("item_number")
    if cfg.target == "*":
        if given is None:
            raise FieldError(f"item_number: required (safe-outputs.{key}.target is '*')")
        return {"item_number": fields.item_number(given, "item_number")}
    if given is not None:
        where = "the triggering issue or pull request" if cfg.target == "triggering" else f"#{cfg.target}"
        raise FieldError(
            f"item_number: not allowed; safe-outputs.{key}.target is {cfg.target!r}, so it goes to {where}"
        )
    return {}


def _create_issue(args: Mapping[str, Any], cfg: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"title": _title(args), "body": _body(args)}
    if args.get("labels") is not None:
        record["labels"] = fields.labels(args["labels"], "labels", cfg.allowed_labels)
    return record


def _add_comment(args: Mapping[str, Any], cfg: Any) -> dict[str, Any]:
    return {"body": _body(args), **_target(args, cfg, "add-comment")}


def _create_pull_request(args: Mapping[str, Any], cfg: Any) -> dict[str, Any]:
    record = _create_issue(args, cfg)
    if args.get("branch") is not None:
        record["branch"] = fields.branch(args["branch"], "branch")
    if args.get("draft") is not None:
        record["draft"] = fields.boolean(args["draft"], "draft")
    return record


def _add_labels(args: Mapping[str, Any], cfg: Any) -> dict[str, Any]:
    names = fields.labels(args.get("labels"), "labels", cfg.allowed)
    if not names:
        raise FieldError("labels: name at least one label")
    return {"labels": names, **_target(args, cfg, "add-labels")}


def _noop(args: Mapping[str, Any], cfg: Any) -> dict[str, Any]:
    return {"message": fields.text(args.get("message"), "message", max_chars=fields.MESSAGE_MAX_CHARS)}


_RULES: dict[str, tuple[frozenset[str], Callable[[Mapping[str, Any], Any], dict[str, Any]]]] = {
    "create_issue": (frozenset({"title", "body", "labels"}), _create_issue),
    "add_comment": (frozenset({"body", "item_number"}), _add_comment),
    "create_pull_request": (frozenset({"title", "body", "branch", "labels", "draft"}), _create_pull_request),
    "add_labels": (frozenset({"labels", "item_number"}), _add_labels),
    "noop": (frozenset({"message"}), _noop),
}


def kind_config(record_type: str, config: SafeOutputsConfig) -> KindConfig:
    """The kind's config, or ``RequestError`` when the kind is unknown or not configured."""
    if record_type not in KINDS:
        raise RequestError(f"unknown safe output type {record_type!r} (known: {', '.join(KINDS)})")
    cfg = config.kind(record_type)
    if cfg is None:
        raise RequestError(f"{record_type} is not enabled: safe-outputs.{KINDS[record_type]} is not configured")
    return cfg


def validate_request(record_type: str, args: Mapping[str, Any], config: SafeOutputsConfig) -> dict[str, Any]:
    """The record for an agent's request (``type`` first, then its fields)."""
    cfg = kind_config(record_type, config)
    allowed, rule = _RULES[record_type]
    unknown = sorted(set(args) - allowed - IGNORED_FIELDS)
    if unknown:
        raise RequestError(f"{unknown[0]}: not a field of {record_type} (fields: {', '.join(sorted(allowed))})")
    try:
        return {"type": record_type, **rule(args, cfg)}
    except FieldError as exc:
        raise RequestError(str(exc)) from None


def validate_record(record: Mapping[str, Any], config: SafeOutputsConfig) -> dict[str, Any]:
    """A record read back from the file: the request rules plus the recorder's own fields."""
    record_type = str(record.get("type", ""))
    system = PR_SYSTEM_FIELDS if record_type == "create_pull_request" else frozenset()
    args = {k: v for k, v in record.items() if k != "type" and k not in system}
    out = validate_request(record_type, args, config)
    for key in sorted(system):
        if not isinstance(record.get(key), str) or not record[key]:
            raise RequestError(f"{key}: missing; a create_pull_request record needs the patch the recorder captured")
        out[key] = record[key]
    return out
