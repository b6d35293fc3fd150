"""The "event context" block: the triggering issue, PR or comment text, sanitised and fenced.

``event_context(event_name, event)`` returns the Markdown section to add to the prompt when the
opt-in ``event-context`` input is on, or ``None`` when the event carries no such text. What is
taken, by event (each text field is its own fenced block, labelled with its source and author):

- ``issues``: the issue's title and body;
- ``issue_comment``: the issue's (or PR's) title and body, and the comment;
- ``pull_request``, ``pull_request_target``: the PR's title and body;
- ``pull_request_review``: the PR's title and body, and the review's body;
- ``pull_request_review_comment``: the PR's title and body, and the comment with its file path
  and diff hunk;
- ``discussion``: the discussion's title and body; ``discussion_comment``: that and the comment.

Every text goes through ``sanitize`` first and is cut at ``MAX_FIELD_CHARS``. The line above
the blocks (event, action, repository, number) is built from fields strangers do not write.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from aw_action.lazy_dataclass import dataclass
from aw_action.security.untrusted_text.fence import Fence
from aw_action.security.untrusted_text.sanitize import sanitize

MAX_FIELD_CHARS = 20_000

_FIELDS: dict[str, list[tuple[str, str, str]]] = {
    # event -> (object key, text key, source label); the author is the object's user.login
    "issues": [("issue", "title", "issue.title"), ("issue", "body", "issue.body")],
    "issue_comment": [
        ("issue", "title", "issue.title"),
        ("issue", "body", "issue.body"),
        ("comment", "body", "comment.body"),
    ],
    "pull_request": [("pull_request", "title", "pull_request.title"), ("pull_request", "body", "pull_request.body")],
    "pull_request_review": [
        ("pull_request", "title", "pull_request.title"),
        ("pull_request", "body", "pull_request.body"),
        ("review", "body", "review.body"),
    ],
    "pull_request_review_comment": [
        ("pull_request", "title", "pull_request.title"),
        ("pull_request", "body", "pull_request.body"),
        ("comment", "path", "comment.path"),
        ("comment", "diff_hunk", "comment.diff_hunk"),
        ("comment", "body", "comment.body"),
    ],
    "discussion": [("discussion", "title", "discussion.title"), ("discussion", "body", "discussion.body")],
    "discussion_comment": [
        ("discussion", "title", "discussion.title"),
        ("discussion", "body", "discussion.body"),
        ("comment", "body", "comment.body"),
    ],
}
_FIELDS["pull_request_target"] = _FIELDS["pull_request"]
_SAFE_WORD = re.compile(r"^[A-Za-z0-9_.\-/\[\]]{1,100}$")


@dataclass(frozen=True)
class EventContext:
    text: str
    sources: list[str]
    removed: dict[str, int] = field(default_factory=dict)
    """What sanitising removed, over all fields (for the run's provenance)."""


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return obj


def _safe(value: Any) -> str | None:
    text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None
    return text if text is not None and _SAFE_WORD.match(text) else None


def _headline(event_name: str, event: Mapping[str, Any]) -> str:
    parts = [f"Event: {event_name}"]
    action = _safe(event.get("action"))
    if action:
        parts[0] += f" ({action})"
    repo = _safe(_get(event, "repository", "full_name"))
    if repo:
        parts.append(f"repository {repo}")
    for key, label in (("pull_request", "pull request"), ("issue", "issue"), ("discussion", "discussion")):
        number = _safe(_get(event, key, "number"))
        if number:
            is_pr = key == "issue" and isinstance(_get(event, "issue", "pull_request"), Mapping)
            parts.append(f"{'pull request' if is_pr else label} #{number}")
            break
    return ", ".join(parts) + "."


def event_context(event_name: str, event: Mapping[str, Any], fence: Fence | None = None) -> EventContext | None:
    fence = fence or Fence()
    blocks: list[str] = []
    sources: list[str] = []
    removed: dict[str, int] = {}
    for obj_key, text_key, source in _FIELDS.get(event_name, []):
        raw = _get(event, obj_key, text_key)
        if not isinstance(raw, str) or not raw.strip():
            continue
        clean = sanitize(raw)
        for name, count in clean.removed.items():
            removed[name] = removed.get(name, 0) + count
        text = clean.text
        if len(text) > MAX_FIELD_CHARS:
            text = text[:MAX_FIELD_CHARS] + f"\n[... {len(text) - MAX_FIELD_CHARS} more characters cut]"
        attrs = {"source": source}
        author = _safe(_get(event, obj_key, "user", "login"))
        if author:
            attrs["author"] = author
        blocks.append(fence.block(text, **attrs))
        sources.append(source)
    if not blocks:
        return None
    text = "\n\n".join(["## Event context", fence.preamble(), _headline(event_name, event), *blocks])
    return EventContext(text, sources, removed)
