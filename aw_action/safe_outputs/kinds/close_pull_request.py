"""``close_pull_request``: propose closing a pull request without merging it (``target``), with a
comment saying why; the filters, the tool and the apply steps are ``closing.py``'s (an issue is
refused)."""

from __future__ import annotations

from aw_action.safe_outputs.kinds import closing


class Kind(closing.ClosingKind):
    name = "close_pull_request"
    NOUN, NUMBER, PULL = "pull request", "pull_request_number", True
    ACTION = "Propose closing a pull request without merging it, with a comment explaining why."
    BODY_ABOUT = "Closing comment: why the pull request is closed unmerged"


KIND = Kind()
