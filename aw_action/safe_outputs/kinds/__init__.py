"""The safe-output kinds, one module each, and the one table that registers them.

What belongs here: a module per kind, named for gh-aw's record type (``create_issue.py``),
holding everything about that kind (``base.SafeOutputKind``): its ``safe-outputs:`` config, the
agent's tool, the validation, what the recorder captures, its planning and its applying. Beside
them only what several kinds share (``common``, ``titled``, ``targeted``, ``patched``, ...) and the interface
(``base``, ``apply_api``).

A new kind is a module here and a row in ``KINDS``, plus its docs (the config table and the
tools in docs/safe-outputs.md); the config parser, the tools, the recorder, the bash command and
the apply job find it in the table. ``KINDS`` is in the order the tools are offered.
"""

from __future__ import annotations

from typing import Any

from aw_action.safe_outputs.kinds import (
    add_comment,
    add_labels,
    add_reviewer,
    close_issue,
    close_pull_request,
    create_discussion,
    create_issue,
    create_pull_request,
    create_pull_request_review_comment,
    hide_comment,
    missing_data,
    missing_tool,
    noop,
    push_to_pull_request_branch,
    remove_labels,
    submit_pull_request_review,
    update_issue,
    update_pull_request,
)
from aw_action.safe_outputs.kinds.base import SafeOutputKind

KINDS: tuple[SafeOutputKind[Any], ...] = (
    create_issue.KIND,
    create_discussion.KIND,
    add_comment.KIND,
    create_pull_request.KIND,
    push_to_pull_request_branch.KIND,
    add_labels.KIND,
    remove_labels.KIND,
    add_reviewer.KIND,
    update_issue.KIND,
    update_pull_request.KIND,
    close_issue.KIND,
    close_pull_request.KIND,
    create_pull_request_review_comment.KIND,
    submit_pull_request_review.KIND,
    hide_comment.KIND,
    missing_tool.KIND,
    missing_data.KIND,
    noop.KIND,
)
BY_TYPE: dict[str, SafeOutputKind[Any]] = {kind.name: kind for kind in KINDS}
"""Record type (gh-aw's snake_case ``type``, the tool's name) -> its kind."""
NOTHING_TO_DO = noop.KIND.name
"""The kind an agent records when the task needs no change (named in the refusal past ``max``)."""
