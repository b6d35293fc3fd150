"""The action's ``continue-from`` inputs (docs/continue.md): which artifact a run continues, and
whether GitHub vouches for where it came from.

An artifact's ``records.sha256`` proves that its files agree with each other, not who wrote them:
whoever controls the run that uploaded it can rewrite both. Its origin is therefore GitHub's record
of that run (``continue-from-run``; ``run_origin.py``, the rule the workflow checkpoints follow): an
artifact of another repository's run, of a run of a fork's code, or of an event a fork's code can
steer (``pull_request_target``, ``workflow_run``) is refused, as is one whose run is not named
inside Actions or cannot be looked up, unless ``continue-from-untrusted`` is true. The history is
untrusted text to the model either way; what this protects is the conversation a maintainer's
comment continues, which a fork must not be able to write for it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path

from aw_action.environment.runner import REPOSITORY_VAR, RunnerFacts
from aw_action.github.action_inputs import ActionInputError, ActionInputs
from aw_action.github.paths import container_path
from aw_action.github.run_origin import approvals_withheld
from aw_action.lazy_dataclass import dataclass

INPUT = "continue-from"
ARTIFACT_INPUT = "continue-from-artifact"
MAX_DOWNLOAD = 256 * 1024 * 1024
"""The largest artifact zip downloaded (a replay reads at most this much of one, inflated)."""


@dataclass(frozen=True)
class ContinueRequest:
    """An artifact to continue from, its origin checked (or its check waived)."""

    path: Path
    run_id: str | None
    """``continue-from-run``: the artifact's own records must name this run."""
    untrusted: str | None = None
    """Why GitHub does not vouch for it, when ``continue-from-untrusted`` let it through anyway."""


def continue_request(
    inputs: ActionInputs, env: Mapping[str, str], workspace: Path, runner: RunnerFacts
) -> ContinueRequest | None:
    """The request, or None without ``continue-from``; ``ActionInputError`` naming the input.
    With ``continue-from-artifact`` the artifact is downloaded here, after its origin is checked."""
    run = inputs.continue_from_run or None
    named = inputs.continue_from_artifact or None
    if not inputs.continue_from and named is None:
        if run:
            raise ActionInputError("continue-from-run", "only used with continue-from or continue-from-artifact")
        return None
    given = INPUT if named is None else ARTIFACT_INPUT
    if inputs.continue_from and named is not None:
        raise ActionInputError(ARTIFACT_INPUT, "not with continue-from (name the downloaded folder or the artifact)")
    if inputs.workflow:
        raise ActionInputError(given, "not with workflow (a workflow resumes from its workflow-checkpoint)")
    if run is not None and not (run.isascii() and run.isdigit()):
        raise ActionInputError("continue-from-run", f"{run!r} is not a workflow run id (digits)")
    refusal = origin_refusal(run, env, runner, inputs.github_token)
    if refusal is not None and not inputs.continue_from_untrusted:
        raise ActionInputError(
            given,
            f"{refusal}: GitHub does not vouch for this artifact, so its conversation is not continued "
            "(continue-from-untrusted: true continues it anyway)",
        )
    if named is None:
        return ContinueRequest(container_path(str(inputs.continue_from), runner, workspace), run, refusal)
    return ContinueRequest(_fetched(named, run, inputs.github_token, env, runner), run, refusal)


def _fetched(name: str, run: str | None, token: str | None, env: Mapping[str, str], runner: RunnerFacts) -> Path:
    """``continue-from-artifact`` downloaded from run ``continue-from-run`` into a new folder."""
    token = token or env.get("GITHUB_TOKEN", "")
    repository = runner.repository
    if run is None or not token or not repository:
        missing = "continue-from-run" if run is None else "github-token" if not token else REPOSITORY_VAR
        raise ActionInputError(ARTIFACT_INPUT, f"needs {missing} to find the artifact")
    folder = Path(tempfile.mkdtemp(prefix="aw-continue-", dir=runner.runner_temp or None))
    api_url = runner.api
    from aw_action.github.artifact_fetch import ArtifactFetchError, fetch_artifact  # httpx: only a download pays

    try:
        return fetch_artifact(api_url, repository, run, name, token, folder / f"{name}.zip", MAX_DOWNLOAD)
    except ArtifactFetchError as exc:
        raise ActionInputError(ARTIFACT_INPUT, str(exc)) from None


def origin_refusal(run_id: str | None, env: Mapping[str, str], runner: RunnerFacts, token: str | None) -> str | None:
    """Why the run that uploaded the artifact is not this repository's own, or None."""
    if not run_id:
        if runner.actions:
            return "continue-from-run is not set, so GitHub cannot say which run uploaded the artifact"
        return None
    return approvals_withheld(run_id, env, token, runner=runner)
