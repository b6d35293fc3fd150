"""What the apply job knows about where it runs: repository, token, API, run id and the event.

Everything comes from the apply job's own environment (``GITHUB_REPOSITORY``, ``GITHUB_TOKEN``,
``GITHUB_API_URL``, ``GITHUB_RUN_ID``, ``GITHUB_EVENT_PATH``, ...), never from the records: the
agent wrote those, the runner wrote these.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from aw_action.environment.event_file import EventFileUnreadable, read_event_file
from aw_action.environment.runner import EVENT_PATH_VAR, REPOSITORY_VAR, RunnerFacts
from aw_action.lazy_dataclass import dataclass

_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
DRY_RUN_REPOSITORY = "OWNER/REPO"


class ApplyInputError(Exception):
    """The apply job cannot start (exit 2); the message names the variable or file."""


@dataclass(frozen=True)
class ApplyContext:
    repository: str
    token: str | None
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    run_id: str = "local"
    event: Mapping[str, Any] = field(default_factory=dict)
    base_branch: str | None = None
    """The pull request's base (``GITHUB_BASE_REF``) or the pushed branch; else the default branch."""
    dry_run: bool = False
    """Plan only: no token, and the repository and event may be missing (``assumed`` says what stood in)."""
    assumed: tuple[str, ...] = ()
    untrusted: str | None = None
    """Why the records are untrusted (a run a fork's code could control: ``origin.py``), or None."""

    @property
    def run_url(self) -> str:
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"

    def triggering_number(self) -> int | None:
        """The issue or pull request the event is about, if any (gh-aw's rule)."""
        for key in ("issue", "pull_request"):
            item = self.event.get(key)
            if isinstance(item, Mapping) and isinstance(item.get("number"), int) and item["number"] > 0:
                return int(item["number"])
        return None

    @classmethod
    def from_env(
        cls, env: Mapping[str, str], *, dry_run: bool = False, runner: RunnerFacts | None = None
    ) -> ApplyContext:
        """A dry run needs nothing but the records: without ``GITHUB_REPOSITORY`` the links name
        ``DRY_RUN_REPOSITORY``, and without an event the items for the triggering issue or pull
        request have no number yet; ``assumed`` says so. ``runner``: the entry point's record of
        the runner's facts (read from ``env`` when not given); ``env`` gives the token."""
        assumed: list[str] = []
        runner = runner or RunnerFacts.read(env)
        repository = runner.repository
        if dry_run and not repository:
            repository = DRY_RUN_REPOSITORY
            assumed.append(f"{REPOSITORY_VAR} is not set: links name {DRY_RUN_REPOSITORY}")
        if not _REPOSITORY.match(repository):
            raise ApplyInputError(f"{REPOSITORY_VAR} must be owner/name, got {repository!r}")
        token = env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or None
        if not dry_run and not token:
            raise ApplyInputError("GITHUB_TOKEN is not set (the apply job needs a token with write access)")
        event = _event(runner.event_path)
        if dry_run and not event:
            assumed.append(
                f"no event ({EVENT_PATH_VAR}): items for the triggering issue or pull request have no number"
            )
        ref = runner.ref
        base = runner.base_ref or (ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None)
        return cls(
            repository=repository,
            token=token,
            api_url=runner.api,
            server_url=runner.server,
            run_id=runner.run_id or "local",
            event=event,
            base_branch=base or None,
            dry_run=dry_run,
            assumed=tuple(assumed),
        )


def _event(path: str) -> Mapping[str, Any]:
    try:
        return read_event_file(path)
    except EventFileUnreadable as exc:
        raise ApplyInputError(f"{EVENT_PATH_VAR} {exc}") from None
