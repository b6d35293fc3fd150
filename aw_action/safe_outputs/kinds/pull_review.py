"""What the two review kinds share: the commit the agent reviewed, and the one review a run's
comments go out in.

The commit: when a record is made, the recorder names the pull request's head from the event the
runner wrote (``GITHUB_EVENT_PATH``: ``pull_request.head.sha``), as ``commit_id``; a gh-aw
record has none, and then the head the apply job finds is used. If the head has moved since
(new commits pushed before apply), the review is not posted: its lines were chosen on a diff
that no longer exists. Apply says so, and a new run reviews the new head.

The review: every review comment the run recorded for a pull request goes out inside one review,
with the first review record for that pull request, or, when the agent submitted none, as a
``COMMENT`` review (gh-aw does the same). One ``POST /pulls/{n}/reviews``
carries the body, the event and every comment (GitHub allows one pending review per user and
pull request, so comments are never posted one by one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from aw_action.environment.event_file import EventFileTooLarge, EventFileUnreadable, read_event_file
from aw_action.environment.runner import RunnerFacts
from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds.apply_api import ApplyError, GitHub, PlannedItem, PullState

COMMIT_FIELD = "commit_id"
_SHA = re.compile(r"^[0-9a-f]{40}$")


def event_head(runner: RunnerFacts) -> str | None:
    """The triggering pull request's head commit, from the runner's event file (None if none)."""
    try:  # a tool call's capture: an event it cannot use names no commit
        event = read_event_file(runner.event_path)
    except (EventFileUnreadable, EventFileTooLarge):
        return None
    pull = event.get("pull_request")
    head = pull.get("head") if isinstance(pull, dict) else None
    sha = head.get("sha") if isinstance(head, dict) else None
    return sha if isinstance(sha, str) and _SHA.match(sha) else None


def capture_commit(record: dict[str, Any], runner: RunnerFacts) -> dict[str, Any]:
    """Name the reviewed commit in ``record``; returns what the agent reads about it."""
    sha = event_head(runner)
    if sha is None:
        return {}
    record[COMMIT_FIELD] = sha
    return {COMMIT_FIELD: sha}


def recorded_commit(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ``commit_id`` of a record read back: absent (gh-aw's records), or a full hash."""
    if COMMIT_FIELD not in record:
        return {}
    value = record[COMMIT_FIELD]
    if not isinstance(value, str) or not _SHA.match(value):
        raise FieldError(f"{COMMIT_FIELD}: must be a 40-character commit hash")
    return {COMMIT_FIELD: value}


def key(item: PlannedItem) -> tuple[str | None, int | None]:
    return (item.repository, item.number)


def where(item: PlannedItem) -> str:
    return f"{item.repository + '#' if item.repository else '#'}{item.number}"


def current(item: PlannedItem, github: GitHub) -> PullState:
    """The pull request as it is now, refused when its head moved past the reviewed commit."""
    assert item.number is not None
    number = item.number
    pull = github.retry(lambda: github.pull_request(item.repository, number))
    if item.commit_id and item.commit_id != pull.head_sha:
        raise ApplyError(
            f"the head of pull request {where(item)} moved from {item.commit_id[:12]} (the commit the agent "
            f"reviewed) to {pull.head_sha[:12]} before apply; the review was not posted (its lines belong "
            "to the old diff): run the review again on the new head"
        )
    return pull
