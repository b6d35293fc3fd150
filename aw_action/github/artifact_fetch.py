"""An artifact of another workflow run, downloaded by its run and name (the action's
``continue-from-artifact`` with ``continue-from-run``; docs/continue.md).

``fetch_artifact`` finds the artifact named ``name`` among run ``run_id``'s
(``GET /repos/{repository}/actions/runs/{run_id}/artifacts``, PyGithub, with a token that may read
actions) and downloads its zip (``archive_download_url``; GitHub redirects to blob storage, and the
token is not sent to another host) to ``dest``, at most ``max_bytes``: the zip is then read as any
artifact zip is, bounded and checked against its ``records.sha256``. Each failure is an
``ArtifactFetchError`` whose message says what to do: no such artifact (with the names the run has),
an expired one (artifacts are kept for the repository's retention period), a token that may not
read actions, a download cut short or too large.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from aw_action.github.trigger_guard import default_client

TIMEOUT_S = 60.0
MAX_LISTED = 500
"""Artifacts of one run looked through for the name."""


class ArtifactFetchError(Exception):
    """The artifact cannot be had; the message says why and what to do."""


def fetch_artifact(
    api_url: str, repository: str, run_id: str, name: str, token: str, dest: Path, max_bytes: int, client: Any = None
) -> Path:
    """Download artifact ``name`` of run ``run_id`` to ``dest`` (module docstring)."""
    gh = client or default_client(api_url, token)
    try:
        run = gh.get_repo(repository).get_workflow_run(int(run_id))
        artifacts = [a for _, a in zip(range(MAX_LISTED), run.get_artifacts(), strict=False)]
    except Exception as exc:  # a 404, a 403, the API down: said in the terms of the one who must fix it
        raise ArtifactFetchError(_api_problem(exc, f"run {run_id} of {repository}")) from None
    matching = [a for a in artifacts if a.name == name]
    if not matching:
        names = ", ".join(sorted({a.name for a in artifacts})[:10]) or "none"
        raise ArtifactFetchError(f"run {run_id} of {repository} has no artifact named {name!r} (it has: {names})")
    artifact = matching[0]
    if artifact.expired:
        raise ArtifactFetchError(
            f"artifact {name!r} of run {run_id} has expired (artifacts are kept for the repository's retention "
            "period, 90 days by default): start a new conversation"
        )
    _download(artifact.archive_download_url, token, dest, max_bytes, name)
    return dest


def _download(url: str, token: str, dest: Path, max_bytes: int, name: str) -> None:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"}
    got = 0
    try:
        with (
            httpx.stream("GET", url, headers=headers, follow_redirects=True, timeout=TIMEOUT_S) as response,
            dest.open("wb") as fh,
        ):
            if response.status_code != 200:
                raise ArtifactFetchError(_status_problem(response.status_code, f"artifact {name!r}"))
            for chunk in response.iter_bytes():
                got += len(chunk)
                if got > max_bytes:
                    raise ArtifactFetchError(f"artifact {name!r} is larger than {max_bytes // 2**20} MiB")
                fh.write(chunk)
    except httpx.HTTPError as exc:
        raise ArtifactFetchError(f"artifact {name!r} could not be downloaded ({type(exc).__name__})") from None


def _api_problem(exc: Exception, what: str) -> str:
    status = getattr(exc, "status", None)
    if isinstance(status, int):
        return _status_problem(status, what)
    return f"{what} could not be looked up ({type(exc).__name__})"


def _status_problem(status: int, what: str) -> str:
    if status in (401, 403):
        return f"{what}: GitHub answered {status}: github-token may not read actions (give the job actions: read)"
    if status == 404:
        return f"{what}: GitHub answered 404: no such run or artifact here, or github-token may not see it"
    if status == 410:
        return f"{what}: GitHub answered 410: the artifact has expired or was deleted"
    return f"{what}: GitHub answered {status}"
