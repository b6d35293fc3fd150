"""``update_issue``: propose changing an existing issue's ``status``, ``title`` or ``body``
(``target``), each only where the config allows it; ``operation`` (``append`` by default,
``prepend``, ``replace``) says how the body meets the issue's. The rules, the tool and the one
``PATCH`` are ``updating.py``'s (a pull request is refused)."""

from __future__ import annotations

from typing import ClassVar

from aw_action.safe_outputs.kinds import updating


class UpdateIssue(updating.UpdatingConfig):
    PARTS: ClassVar[tuple[str, ...]] = ("status", "title", "body")
    status: bool = False
    title: bool = False
    body: bool = False


class Kind(updating.UpdatingKind):
    name = "update_issue"
    config_model = UpdateIssue
    NOUN, NUMBER, PULL = "issue", "issue_number", False
    ACTION = "Propose changing an existing issue."
    DEFAULT_OPERATION = "append"


KIND = Kind()
