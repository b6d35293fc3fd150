"""``update_pull_request``: propose changing an existing pull request's ``title`` or ``body``
(``target``), each only where the config allows it; ``operation`` (``replace`` by default, as in
gh-aw, ``append``, ``prepend``) says how the body meets the pull request's. The rules, the tool
and the one ``PATCH`` are ``updating.py``'s (an issue is refused; gh-aw's ``update_branch`` and
``draft`` are not supported)."""

from __future__ import annotations

from typing import ClassVar

from aw_action.safe_outputs.kinds import updating


class UpdatePullRequest(updating.UpdatingConfig):
    PARTS: ClassVar[tuple[str, ...]] = ("title", "body")
    title: bool = False
    body: bool = False


class Kind(updating.UpdatingKind):
    name = "update_pull_request"
    config_model = UpdatePullRequest
    NOUN, NUMBER, PULL = "pull request", "pull_request_number", True
    ACTION = "Propose changing an existing pull request's title or description."
    DEFAULT_OPERATION = "replace"


KIND = Kind()
