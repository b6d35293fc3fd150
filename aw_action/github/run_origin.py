"""Where a workflow checkpoint came from, as GitHub records it, and whether its reviews count.

A checkpoint's files (its state, its ``records.sha256``) prove only that they agree with each
other: whoever controls the artifact can rewrite both, an approval included. Its origin is
therefore read from GitHub's record of the run that uploaded it
(``GET /repos/{repository}/actions/runs/{run_id}``: ``repository``, ``head_repository``,
``event``), never from the checkpoint. ``approvals_withheld`` says why the reviews a checkpoint
records do not count, or None when they do:

- the run is this repository's, its code the repository's own (``head_repository`` is this
  repository) and its event none that a fork's code can steer (``FORK_CONTROLLED``): the
  reviews count;
- anything else (a fork's pull request, another repository, ``pull_request_target`` or
  ``workflow_run``, a run GitHub does not know or cannot be asked about) withholds them:
  the run restarts at the first step a reviewer decided (``workflows/resume.withhold_approvals``);
- no run named: inside GitHub Actions (``GITHUB_ACTIONS=true``) the checkpoint was downloaded
  from somewhere, so the reviews are withheld; on a person's own machine, outside Actions, the
  checkpoint is that person's own file and they count.

docs/workflows.md, "Which resumes are trusted", says the same for people.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from aw_action.environment.runner import REPOSITORY_VAR, RunnerFacts
from aw_action.github.trigger_guard import default_client
from aw_action.lazy_dataclass import dataclass

FORK_CONTROLLED = {
    "pull_request_target": "a pull_request_target run, which a fork's pull request starts and often builds",
    "workflow_run": "a workflow_run run, which a fork's pull request can start and feed",
}
"""Events whose run carries the repository's code but may run or read a fork's: its files are
not the repository's word."""


@dataclass(frozen=True)
class RunOrigin:
    """GitHub's record of a run: its repository, the repository its code came from (None for a
    deleted fork) and its event."""

    run_id: str
    repository: str
    head_repository: str | None
    event: str


def read_run_origin(api_url: str, repository: str, run_id: str, token: str, client: Any = None) -> RunOrigin:
    """GitHub's record of run ``run_id`` of ``repository``; raises what the client raises."""
    gh = client or default_client(api_url, token)
    run = gh.get_repo(repository).get_workflow_run(int(run_id))
    data: Mapping[str, Any] = run.raw_data
    head = data.get("head_repository")
    head_name = head.get("full_name") if isinstance(head, Mapping) else None
    repo = data.get("repository")
    return RunOrigin(
        run_id,
        str(repo.get("full_name", "")) if isinstance(repo, Mapping) else "",
        str(head_name) if head_name else None,
        str(data.get("event", "")),
    )


def judge(origin: RunOrigin, repository: str) -> str | None:
    """Why ``origin``'s reviews do not count for ``repository``, or None (module docstring)."""
    run = f"run {origin.run_id}"
    if origin.repository.lower() != repository.lower():
        return f"{run} belongs to {origin.repository or 'no repository'}, not {repository}"
    if origin.head_repository is None or origin.head_repository.lower() != repository.lower():
        return f"{run} ran the code of {origin.head_repository or 'a deleted repository'}, a fork's"
    if origin.event in FORK_CONTROLLED:
        return f"{run} is {FORK_CONTROLLED[origin.event]}"
    return None


def approvals_withheld(
    run_id: str | None,
    env: Mapping[str, str],
    token: str | None = None,
    client: Callable[[str, str], Any] = default_client,
    *,
    runner: RunnerFacts | None = None,
) -> str | None:
    """Why the reviews of a checkpoint uploaded by run ``run_id`` do not count here, or None.
    ``runner``: the entry point's record of the runner's facts (read from ``env`` when not given);
    ``env`` gives ``GITHUB_TOKEN`` when ``token`` is empty."""
    runner = runner or RunnerFacts.read(env)
    if not run_id:
        if runner.actions:
            return "the run that uploaded the checkpoint is not named, so GitHub cannot say where it came from"
        return None
    if not run_id.isascii() or not run_id.isdigit():
        return f"{run_id!r} is not a workflow run id"
    repository, token = runner.repository, token or env.get("GITHUB_TOKEN", "")
    if not repository or not token:
        missing = REPOSITORY_VAR if not repository else "a GitHub token"
        return f"run {run_id} cannot be looked up without {missing}"
    api_url = runner.api
    try:
        origin = read_run_origin(api_url, repository, run_id, token, client(api_url, token))
    except Exception as exc:  # the API down, a 404, a timeout: the origin is unknown
        status = getattr(exc, "status", None)
        said = f"GitHub answered {status}" if isinstance(status, int) else f"{type(exc).__name__}"
        return f"run {run_id} of {repository} could not be looked up ({said})"
    return judge(origin, repository)
