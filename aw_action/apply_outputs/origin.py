"""Whether the records being applied can be trusted: the origin of the run that wrote them, as
GitHub records it (``github/run_origin.py``), never as the artifact says.

The run: ``--from-run`` (or ``AW_SAFE_OUTPUTS_RUN_ID``) when the apply job names it; else, when the
apply job's own event is ``workflow_run``, the run that event is about (the runner's event file);
else, when its event is ``pull_request`` or ``pull_request_target``, this run itself (the agent
job was a job of it). Any other event (push, issues, schedule, a dispatch...) runs only the
repository's code, and a run that names none is trusted as before.

A run a fork's code could control (a fork's pull request, ``pull_request_target``,
``workflow_run``, another repository's, or one GitHub cannot be asked about) makes the records
untrusted (``untrusted_reason`` says why): the limits must come from the repository's own config
(``--config`` outside the artifact, the base ref's checkout), never the copy in the artifact,
and no review is applied with ``APPROVE`` or ``REQUEST_CHANGES`` (only ``COMMENT``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aw_action.environment.runner import RUN_ID_VAR as RUNNER_RUN_ID_VAR
from aw_action.environment.runner import RunnerFacts
from aw_action.environment.tuning import SAFE_OUTPUTS_RUN_ID
from aw_action.github.run_origin import approvals_withheld

RUN_ID_VAR = SAFE_OUTPUTS_RUN_ID.name
PULL_EVENTS = frozenset({"pull_request", "pull_request_target"})


def source_run(
    named: str | None, env: Mapping[str, str], runner: RunnerFacts, event: Mapping[str, object]
) -> str | None:
    """The run whose records these are, to be looked up; None when the job's event vouches."""
    named = named or SAFE_OUTPUTS_RUN_ID.text(env)
    if named:
        return named.strip()
    event_name = runner.event_name
    if event_name == "workflow_run":
        run = event.get("workflow_run")
        run_id = run.get("id") if isinstance(run, Mapping) else None
        return str(run_id) if run_id is not None else "(the workflow_run event names no run)"
    if event_name in PULL_EVENTS:
        return runner.run_id or f"({RUNNER_RUN_ID_VAR} is not set)"
    return None


def untrusted_reason(run_id: str | None, env: Mapping[str, str], runner: RunnerFacts, token: str | None) -> str | None:
    """Why the records of ``run_id`` are untrusted here, or None (the module docstring)."""
    if run_id is None:
        return None
    return approvals_withheld(run_id, env, token, runner=runner)


def config_refusal(reason: str, config: Path | None, records_dir: Path) -> str | None:
    """Why the config cannot be used for untrusted records: none given, or one inside the artifact."""
    if config is None:
        return (
            f"the records are untrusted ({reason}): the config copy beside them is not the repository's; "
            "pass --config with the base ref's config"
        )
    try:
        config.resolve().relative_to(records_dir.resolve())
    except ValueError:
        return None
    return f"the records are untrusted ({reason}): --config {config} is inside their artifact; use the base ref's"
