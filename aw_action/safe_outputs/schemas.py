"""The agent-facing tool definitions: gh-aw's tool names and argument shapes
(``actions/setup/js/safe_outputs_tools.json``), narrowed to what the config allows, with the
limits written into each description so the model knows them before it calls.

``item_number`` stays in the schema, as in gh-aw, but is required only when the kind's
``target`` is ``*``; otherwise the target is fixed, the description says where the item goes,
and a given ``item_number`` is refused with that reason.
"""

from __future__ import annotations

from typing import Any

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.config import (
    AddComment,
    AddLabels,
    CreateIssue,
    CreatePullRequest,
    KindConfig,
    Noop,
    SafeOutputsConfig,
)

LATER = (
    "Nothing is written to GitHub now: the request is recorded and a later job with write access "
    "applies it after this run."
)


def _string(description: str, max_chars: int) -> dict[str, Any]:
    return {"type": "string", "description": f"{description} (at most {max_chars:,} characters)"}


_TITLE = _string("Short title; it becomes the heading, so do not repeat it in the body", fields.TITLE_MAX_CHARS)
_BODY = _string("Markdown body", fields.BODY_MAX_CHARS)
_LABELS = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Label names (they must exist in the repository)",
}


def _item(cfg: AddComment | AddLabels, kind: str | list[str]) -> dict[str, Any]:
    """gh-aw types ``item_number`` as number-or-string for add_comment, number for add_labels."""
    if cfg.target == "*":
        return {"type": kind, "description": "The issue or pull request number to act on"}
    return {"type": kind, "description": "Not used here: the target is fixed (leave it out)"}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _per_run(limit: int, noun: str) -> str:
    return f"At most {limit} {noun}{'' if limit == 1 else 's'} per run; a call past that is refused."


def _labels_note(cfg: CreateIssue | CreatePullRequest) -> str:
    parts = []
    if cfg.labels:
        parts.append(f"Labels always added: {', '.join(cfg.labels)}.")
    if cfg.allowed_labels is not None:
        parts.append(f"Labels you may add: {', '.join(cfg.allowed_labels) or 'none'}.")
    return " ".join(parts)


def _prefix_note(prefix: str) -> str:
    return f'Titles get the prefix "{prefix}".' if prefix.strip() else ""


def _target_note(cfg: AddComment | AddLabels) -> str:
    if cfg.target == "*":
        return "Name the issue or pull request with item_number."
    if cfg.target == "triggering":
        return "It goes to the issue or pull request that triggered this run."
    return f"It goes to #{cfg.target}."


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def create_issue(cfg: CreateIssue) -> tuple[str, dict[str, Any]]:
    return _join(
        "Propose a new GitHub issue for an actionable bug, feature request or task.",
        LATER,
        _per_run(cfg.max, "issue"),
        _prefix_note(cfg.title_prefix),
        _labels_note(cfg),
    ), _object({"title": _TITLE, "body": _BODY, "labels": _LABELS}, ["title", "body"])


def add_comment(cfg: AddComment) -> tuple[str, dict[str, Any]]:
    properties: dict[str, Any] = {"body": _BODY, "item_number": _item(cfg, ["number", "string"])}
    return _join(
        "Propose a comment on an existing issue or pull request.",
        _target_note(cfg),
        LATER,
        _per_run(cfg.max, "comment"),
    ), _object(properties, ["body", *(["item_number"] if cfg.target == "*" else [])])


def create_pull_request(cfg: CreatePullRequest, max_patch_kib: int) -> tuple[str, dict[str, Any]]:
    properties = {
        "title": _TITLE,
        "body": _BODY,
        "branch": {
            "type": "string",
            "description": "Name for the new branch (optional; one is made up from the title)",
        },
        "labels": _LABELS,
        "draft": {"type": "boolean", "description": f"Open as a draft (default: {str(cfg.draft).lower()})"},
    }
    return _join(
        "Propose a pull request with your changes to the files in the working tree (committed or not; "
        "files .gitignore excludes are left out). Make the edits first, then call this once.",
        LATER,
        _per_run(cfg.max, "pull request"),
        f"The patch may be at most {max_patch_kib:,} KiB.",
        _prefix_note(cfg.title_prefix),
        _labels_note(cfg),
    ), _object(properties, ["title", "body"])


def add_labels(cfg: AddLabels) -> tuple[str, dict[str, Any]]:
    properties: dict[str, Any] = {"labels": _LABELS, "item_number": _item(cfg, "number")}
    allowed = f"Labels you may add: {', '.join(cfg.allowed)}." if cfg.allowed is not None else ""
    return _join(
        "Propose adding labels to an existing issue or pull request.",
        _target_note(cfg),
        LATER,
        _per_run(cfg.max, "add_labels call"),
        allowed,
    ), _object(properties, ["labels", *(["item_number"] if cfg.target == "*" else [])])


def noop(cfg: Noop) -> tuple[str, dict[str, Any]]:
    message = _string("What you checked and why nothing needs doing", fields.MESSAGE_MAX_CHARS)
    return _join(
        "Record that the task needs no GitHub change (e.g. 'no issues found'), so the run still leaves "
        "a visible result.",
        _per_run(cfg.max, "message"),
    ), _object({"message": message}, ["message"])


def tool_definition(record_type: str, config: SafeOutputsConfig) -> tuple[str, dict[str, Any]]:
    """(description, parameters) for a configured kind."""
    cfg: KindConfig | None = config.kind(record_type)
    if isinstance(cfg, CreateIssue):
        return create_issue(cfg)
    if isinstance(cfg, CreatePullRequest):
        return create_pull_request(cfg, config.max_patch_size)
    if isinstance(cfg, AddComment):
        return add_comment(cfg)
    if isinstance(cfg, AddLabels):
        return add_labels(cfg)
    if isinstance(cfg, Noop):
        return noop(cfg)
    raise ValueError(f"{record_type} is not configured")
