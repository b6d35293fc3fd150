"""A missing credential, said in the terms of whoever has to fix it.

The harness reports a missing credential by the variables the credential table looks in
(``MissingCredentialsError.variables``). An action user sets inputs, not variables: the action
names the input the table gives a variable (``anthropic-api-key``, ...) where one exists. Either
way, when the run is for a pull request from a fork, the message says why the secret is missing:
GitHub gives no secrets to a workflow that a fork's pull request triggers (``pull_request``;
``pull_request_target`` runs get them, with the base branch's workflow).
"""

from __future__ import annotations

from aw_action.ai.credentials import action_inputs
from aw_action.environment.event_file import EventFileTooLarge, EventFileUnreadable, read_event_file
from aw_action.environment.runner import RunnerFacts
from aw_action.exits import InvocationError, MissingCredentialsError
from aw_action.github.fork_guard import fork_pull_request

SECRETLESS_EVENTS = frozenset({"pull_request", "pull_request_review", "pull_request_review_comment"})


def fork_hint(runner: RunnerFacts) -> str | None:
    """Why a secret may be missing: this run is for a fork's pull request (None otherwise)."""
    event_name = runner.event_name
    if event_name not in SECRETLESS_EVENTS:
        return None
    try:
        event = read_event_file(runner.event_path)
    except (EventFileUnreadable, EventFileTooLarge):
        return None
    check = fork_pull_request(event_name, event)
    if not check.from_fork:
        return None
    return (
        f"this run is for a pull request from {check.head_repo or 'a deleted fork'}, and GitHub passes no secrets "
        f"to workflows that a fork's pull request triggers ({event_name} event): the secret is empty here, "
        "not wrong; run such reviews on pull_request_target or from a branch of this repository (docs/security.md)"
    )


def explain(exc: InvocationError, runner: RunnerFacts, *, action: bool) -> InvocationError:
    """``exc`` reworded for the user: the action names its inputs; a fork's PR gets the hint."""
    if not isinstance(exc, MissingCredentialsError):
        return exc
    message = str(exc)
    key_inputs = action_inputs()
    inputs = [(var, key_inputs[var]) for var in exc.variables if var in key_inputs]
    if action and inputs:
        var, name = inputs[0]
        named = " or ".join(f"the `{n}` input" for _, n in inputs)
        others = [v for v in exc.variables if v not in key_inputs]
        extra = f" (or {' or '.join(others)} in the step's env)" if others else ""
        message = (
            f"no credentials for model {exc.model}: set {named}{extra}, "
            f"e.g. `{name}: ${{{{ secrets.{var} }}}}` under the step's `with:`"
        )
    hint = fork_hint(runner)
    if hint:
        message = f"{message}; {hint}"
    return MissingCredentialsError(message, exc.model, exc.variables, hint)
