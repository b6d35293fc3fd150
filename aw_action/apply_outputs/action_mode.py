"""The action's ``mode: apply``: ``aw-harness apply-safe-outputs`` as a step of the apply job.

Inputs: ``safe-outputs-path`` (the downloaded artifact folder, or its ``safe-outputs.jsonl``;
relative to the workspace), ``config`` (the repository's own config.json with the limits; else
the copy in the artifact), ``dry-run``, ``github-token`` (becomes ``GITHUB_TOKEN``; the job's
token by default). A path under ``runner.temp`` as the workflow wrote it (a host path) is read
at the runner's mount of that folder in the container (``github/paths.py``).

Everything the command prints goes through the step log's guard (records are the agent's text:
none of it may act as a workflow command); the step summary and the outputs ``created-urls``,
``created-items``, ``applied-count``, ``failed-count`` are written by the command itself
(``report.py``), then ``conclusion`` and ``exit-code`` here. The exit code is the command's.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from aw_action.apply_outputs import apply_cli
from aw_action.environment.runner import RUNTIME_VARS, RunnerFacts
from aw_action.github.action_inputs import ActionInputError, ActionInputs
from aw_action.github.log import WorkflowLog
from aw_action.github.outputs import write_outputs
from aw_action.github.paths import container_path


def apply_argv(inputs: ActionInputs, runner: RunnerFacts, workspace: Path) -> list[str]:
    """The command line for ``apply_cli.main``; ``ActionInputError`` when the path is missing."""
    if not inputs.safe_outputs_path:
        raise ActionInputError("safe-outputs-path", "required with mode: apply (the downloaded artifact folder)")
    argv = [str(container_path(inputs.safe_outputs_path, runner, workspace))]
    if inputs.config:
        argv += ["--config", str(container_path(inputs.config, runner, workspace))]
    if inputs.dry_run:
        argv.append("--dry-run")
    return argv


def apply_env(inputs: ActionInputs, env: Mapping[str, str]) -> dict[str, str]:
    """The command's environment: no ``INPUT_*`` or runtime credential, the token as ``GITHUB_TOKEN``."""
    out = {k: v for k, v in env.items() if not k.upper().startswith("INPUT_") and k not in RUNTIME_VARS}
    if inputs.github_token:
        out["GITHUB_TOKEN"] = inputs.github_token
    return out


def run_apply_mode(
    inputs: ActionInputs, env: Mapping[str, str], runner: RunnerFacts, log: WorkflowLog, cwd: Path
) -> int:
    """Apply the records; raises ``ActionInputError`` for a missing ``safe-outputs-path``.
    ``runner``: the action's record of the runner's facts (of ``env``)."""
    workspace = runner.workspace_or(cwd)
    argv = apply_argv(inputs, runner, workspace)
    with redirect_stdout(log), redirect_stderr(log):
        try:
            code = apply_cli.main(argv, apply_env(inputs, env), runner=runner.without_runtime())
        except SystemExit as exc:  # argparse refusing the arguments
            code = exc.code if isinstance(exc.code, int) else 2
    if code == 2:
        log.error("the safe outputs could not be applied (see the line above)", title="aw-harness: apply")
    elif code:
        what = "would be refused" if inputs.dry_run else "were refused or failed; the others were applied"
        log.error(f"some safe outputs {what}", title="aw-harness: apply")
    try:
        conclusion = "success" if code == 0 else "failure"
        write_outputs(runner.output_file or None, {"conclusion": conclusion, "exit-code": str(code)})
    except OSError as exc:
        log.warning(f"could not write step outputs: {exc}", title="aw-harness")
    log.finish()
    return code
