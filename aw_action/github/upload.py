"""Uploading the run's output folder as one artifact, on success and on failure.

Never fatal: every problem (no runtime token, GHES, server error, cancel budget spent) becomes one
``::warning::`` and an empty ``artifact-id``; the exit code is the run's, whatever happens here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from aw_action.environment.runner import ARTIFACT_RUNTIME_VARS, RunnerFacts
from aw_action.environment.tuning import ARTIFACT_STAGE
from aw_action.github.log import WorkflowLog
from aw_action.lazy_dataclass import dataclass
from aw_action.run.cancel import CancelClock, settle

TITLE = "aw-harness: artifact upload"
UPLOAD_LIMIT_S = 300.0
"""The whole upload (zip, calls, retries) gets at most this long, cancel or not: a server that
stops answering costs the step five minutes at worst (the toolkit's stall timeout), not more."""


SAFE_OUTPUTS_VAR = "GH_AW_SAFE_OUTPUTS"
"""gh-aw's agent-side safe-outputs file (``${RUNNER_TEMP}/gh-aw/safeoutputs/outputs.jsonl``)."""


@dataclass(frozen=True)
class Upload:
    """What became of the upload: the artifact's id and page, or why there is none."""

    artifact_id: str = ""
    url: str | None = None
    problem: str = ""
    """Empty when uploaded; otherwise the reason in a few words (also the log's warning)."""


def has_files(root: Path) -> bool:
    return root.is_dir() and any(p.is_file() and not p.name.startswith(".") for p in root.rglob("*"))


def extra_files(env: Mapping[str, str], root: Path) -> dict[str, Path]:
    """Run files kept outside the output folder that belong in the record: the safe outputs."""
    value = env.get(SAFE_OUTPUTS_VAR)
    if not value:
        return {}
    path = Path(value)
    if not path.is_file() or path.resolve().is_relative_to(root.resolve()):
        return {}
    return {f"safe-outputs/{path.name}": path}


async def upload_run_artifacts(
    env: Mapping[str, str],
    name: str,
    root: Path,
    log: WorkflowLog,
    clock: CancelClock,
    budget_s: float,
    limit_s: float = UPLOAD_LIMIT_S,
    *,
    runner: RunnerFacts | None = None,
) -> Upload:
    """The artifact's id and page, or why nothing was uploaded (then also a warning). Every file
    goes through the log's redactor on its way into the zip. ``runner``: the entry point's record
    of the runner's facts (read from ``env`` when not given); ``env`` names the safe outputs."""
    # Imported here: only runs that upload pay for the HTTP client.
    import httpx

    from aw_action.github.artifacts import ArtifactClient, ArtifactError, artifact_url, is_ghes

    runner = runner or RunnerFacts.read(env)
    stage = ARTIFACT_STAGE.text(env)
    if stage:
        return _staged(root, Path(stage), extra_files(env, root), log)
    token, results_url = runner.runtime_token, runner.results_url
    if not token or not results_url:
        return _skipped(log, f"{' or '.join(ARTIFACT_RUNTIME_VARS)} is not set")
    if is_ghes(runner.server_url):
        return _skipped(log, "artifact v4 is not available on GitHub Enterprise Server")
    extra = extra_files(env, root)
    if not has_files(root) and not extra:
        log.write(f"aw-harness: no files in {root} to upload\n")
        return Upload(problem="no files to upload")
    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=10.0)) as client:
            uploader = ArtifactClient(results_url, token, client, on_secret=log.mask, scrub=log.redactor.text)
            task = asyncio.create_task(uploader.upload(name, root, extra))
            if not await settle(task, clock, budget_s, limit_s):
                late = f"not finished within {limit_s:g} s"
                why = "the step was cancelled before the upload finished" if clock.cancelled else late
                log.warning(f"abandoned: {why}", title=TITLE)
                return Upload(problem=f"upload abandoned: {why}")
            result = task.result()
    except Exception as exc:  # any failure is a warning, never a changed exit code
        detail = str(exc) if isinstance(exc, ArtifactError) else f"{type(exc).__name__}: {exc}"
        log.warning(f"failed: {detail}", title=TITLE)
        return Upload(problem="upload failed (see the log)")
    url = artifact_url(runner, result.artifact_id)
    log.write(
        f"aw-harness: uploaded artifact {result.name!r} (id {result.artifact_id}, {result.files} files, "
        f"{result.size} bytes, sha256:{result.sha256}){': ' + url if url else ''}\n"
    )
    return Upload(result.artifact_id, url)


STAGED = "left to the action's upload step"


def _staged(root: Path, stage: Path, extra: Mapping[str, Path], log: WorkflowLog) -> Upload:
    """The runner-side action's upload: its composite steps get no runtime token, so its own next
    step uploads ``stage`` (``AW_ARTIFACT_STAGE``), into which the files the zip would hold are
    copied here, through the redactor (as the zip's are), no hidden file and no symlink."""
    from aw_action.github.archive import stage_directory

    try:
        count = stage_directory(root, stage, extra, log.redactor.text)
    except OSError as exc:
        log.warning(f"the records could not be staged in {stage}: {exc.strerror or exc}", title=TITLE)
        return Upload(problem="the records could not be staged for the upload (see the log)")
    log.write(f"aw-harness: {count} files of {root} staged in {stage} for the action's upload step\n")
    return Upload(problem=STAGED)


def _skipped(log: WorkflowLog, why: str) -> Upload:
    log.warning(f"skipped: {why}", title=TITLE)
    return Upload(problem=f"upload skipped: {why}")
