"""``close_issue``: propose closing an existing issue (``target``) with a comment saying why;
the filters, the tool and the apply steps are ``closing.py``'s (a pull request is refused)."""

from __future__ import annotations

from aw_action.safe_outputs.kinds import closing


class Kind(closing.ClosingKind):
    name = "close_issue"
    NOUN, NUMBER, PULL = "issue", "issue_number", False
    ACTION = "Propose closing an issue, with a comment explaining why."
    BODY_ABOUT = "Closing comment: why the issue is closed"


KIND = Kind()
