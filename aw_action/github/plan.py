"""From validated inputs to a run plan: the RunConfig the CLI would use, the prompt file, the
output directory and the environment the Harness gets.

Rules:
- ``config`` (a config.json, relative paths from the workspace) is the base; every input that
  is set overrides its field (``input_overrides``), and the config is resolved as for every entry
  point (``config/resolve.py``), so the action and the CLI accept exactly the same settings; a
  problem names the input that set the value, else ``config``. Without ``config``, ``model`` is
  required.
- Exactly one of ``prompt`` (inline text, written to a temp file) and ``prompt-file``.
- On a fork's pull request (``fork_files``), the config file, the prompt file, path extensions
  and path imports are the base commit's, or the plan is refused naming the file (exit 2).
- The Harness environment: credentials from the key inputs, ``AW_OUTPUT_DIR``; no ``INPUT_*``
  variable (the agent's shell inherits this environment, and the inputs hold secrets) and no
  job-scoped runtime credential (artifact, cache and OIDC tokens are the action's, not the
  agent's).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from aw_action.ai.credentials import action_inputs
from aw_action.config import ConfigError, ConfigSources, Override, ResolvedConfig, resolve_config
from aw_action.config.document import mcp_config_servers
from aw_action.environment.runner import RUNTIME_VARS, WORKSPACE_VAR, RunnerFacts
from aw_action.environment.tuning import OUTPUT_DIR
from aw_action.exits import InvocationError
from aw_action.github.action_inputs import (
    INVALID_ARTIFACT_CHARS,
    ActionInputError,
    ActionInputs,
    parse_headers,
    raw_input,
    split_list,
)
from aw_action.github.continue_inputs import ContinueRequest, continue_request
from aw_action.github.event import TriggerEvent
from aw_action.github.fork_files import ForkFiles
from aw_action.github.paths import container_credential_files, default_output_dir, keep_out_of_git
from aw_action.github.run_origin import approvals_withheld
from aw_action.github.workflow_inputs import require_workflow, workflow_request
from aw_action.lazy_dataclass import dataclass
from aw_action.mcp.config import CONFIG_KEY
from aw_action.run.budget_kinds import BUDGET_KINDS, BudgetKind
from aw_action.run.config import RunConfig
from aw_action.workflows.request import WorkflowRequest


@dataclass
class RunPlan:
    resolved: ResolvedConfig
    """The run's config; its ``path`` is config.json (or, without one, a virtual path in the
    workspace: relative paths in the config, such as ``harness.faux-script``, resolve from its
    folder)."""
    prompt_path: Path
    workspace: Path
    output_dir: Path
    env: dict[str, str]
    upload: bool
    artifact_name: str
    event: TriggerEvent
    runner: RunnerFacts
    """The runner's facts as the harness's environment (``env``) gives them: the action's
    record ``for_harness`` (``environment/runner.py``)."""
    fork: ForkFiles | None = None
    """Set on a fork's pull request: the files above came from its base commit."""
    continuation: ContinueRequest | None = None
    """Set with ``continue-from``: the earlier run's artifact, its origin checked
    (``github/continue_inputs.py``)."""
    workflow: WorkflowRequest | None = None
    """Set when the run is a workflow (``github/workflow_inputs.py``); ``prompt_path`` then
    held its input."""

    @property
    def config(self) -> RunConfig:
        return self.resolved.config

    @property
    def config_path(self) -> Path:
        return self.resolved.path


def _resolve(workspace: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else workspace / path


def input_overrides(inputs: ActionInputs, workspace: Path, fork: ForkFiles | None = None) -> tuple[Override, ...]:
    """The inputs that are set, each as the config.json field it overrides (kebab-case keys, as in
    spec §6.1); the budget inputs are the budget table's."""
    fields: tuple[tuple[str, tuple[str, ...], Any], ...] = (
        ("model", ("engine", "model"), inputs.model),
        *((kind.action_input, kind.config_path, _whole(kind, inputs.budget(kind))) for kind in BUDGET_KINDS),
        ("compaction", ("harness", "context", "compaction"), inputs.compaction),
        ("extensions", ("harness", "extensions"), split_list(inputs.extensions) or None),
        ("imports", ("imports",), split_list(inputs.imports) or None),
        ("pass-env", ("tools", "pass-env"), split_list(inputs.pass_env) or None),
        ("otlp-endpoint", ("observability", "otlp", "endpoint"), inputs.otlp_endpoint),
        ("otlp-headers", ("observability", "otlp", "headers"), parse_headers(inputs.otlp_headers) or None),
        ("output-schema", ("harness", "output-schema"), _output_schema(inputs.output_schema, workspace, fork)),
        ("progress-comment", ("harness", "progress-comment"), inputs.progress_comment),
        ("progress-comment-answer", ("harness", "progress-comment-answer"), inputs.progress_comment_answer),
        ("sandbox", ("harness", "sandbox"), inputs.sandbox),
        ("sandbox-network", ("harness", "sandbox-network"), inputs.sandbox_network),
        ("sandbox-required", ("harness", "sandbox-required"), inputs.sandbox_required),
    )
    mcp = _mcp_config(inputs.mcp_config, workspace, fork)
    return tuple(Override(path, value, name) for name, path, value in fields if value is not None) + mcp


def _mcp_config(value: str | None, workspace: Path, fork: ForkFiles | None = None) -> tuple[Override, ...]:
    """The Claude-style ``{"mcpServers": {...}}`` document, inline or a workspace file (a fork
    PR's base version), as one ``mcp-servers`` entry per server; a server config.json also
    defines is refused naming both (``Override.adds``)."""
    if value is None or not value.strip():
        return ()

    def file(text: str) -> Path:
        path = _resolve(workspace, text)
        return fork.file(path, "mcp-config") if fork is not None else path

    try:
        servers = mcp_config_servers(value, file, "mcp-config")
    except (ValueError, InvocationError) as exc:
        raise ActionInputError("mcp-config", str(exc).removeprefix("mcp-config: ")) from None
    return tuple(Override((CONFIG_KEY, name), spec, "mcp-config", adds=True) for name, spec in servers.items())


def _output_schema(value: str | None, workspace: Path, fork: ForkFiles | None = None) -> dict[str, Any] | None:
    """Inline JSON or a file relative to the workspace (a fork PR's base version), checked now so a
    bad one names the input."""
    if value is None:
        return None
    if fork is not None and not value.strip().startswith("{"):
        value = str(fork.file(_resolve(workspace, value.strip()), "output-schema"))
    from aw_action.structured import OutputSchemaError, load_output_schema  # jsonschema: only when used

    try:
        return load_output_schema(value, workspace)
    except OutputSchemaError as exc:
        raise ActionInputError("output-schema", str(exc).removeprefix("output-schema: ")) from None


def _whole(kind: BudgetKind, value: float | None) -> float | int | None:
    return int(value) if value is not None and kind.integer else value


def build_config(
    inputs: ActionInputs, env: Mapping[str, str], workspace: Path, fork: ForkFiles | None = None
) -> ResolvedConfig:
    """The run's config: the ``config`` file (a fork PR's base version) under the inputs that
    are set, resolved as for every entry point; ``ActionInputError`` naming the input at fault."""
    original = _resolve(workspace, inputs.config) if inputs.config else workspace / "config.json"
    path = fork.file(original, "config") if fork is not None and inputs.config else original
    overrides = input_overrides(inputs, workspace, fork)
    missing_model = None if inputs.config else "required when no config file is given"
    sources = ConfigSources(path, file=bool(inputs.config), overrides=overrides, missing_model=missing_model)
    try:
        resolved = resolve_config(sources, env)
    except ConfigError as exc:
        raise _input_error(exc, inputs) from None
    if fork is None:
        return resolved
    return replace(resolved, config=fork.pin(resolved.config, original.parent))


def _input_error(exc: ConfigError, inputs: ActionInputs) -> ActionInputError:
    if exc.source is not None:
        return ActionInputError(exc.source, exc.reason.split(": ", 1)[-1])
    if exc.field[:1] == ("engine",) and not inputs.config:
        return ActionInputError("model", exc.reason)
    if exc.field:
        return ActionInputError("config", f"{inputs.config or 'inputs'}: {exc.reason}")
    return ActionInputError("config", str(exc))


def prompt_path(inputs: ActionInputs, workspace: Path, temp_root: str | None, fork: ForkFiles | None = None) -> Path:
    if inputs.prompt and inputs.prompt_file:
        raise ActionInputError("prompt", "set either prompt or prompt-file, not both")
    if inputs.prompt_file:
        path = _resolve(workspace, inputs.prompt_file)
        if fork is not None:
            return fork.file(path, "prompt-file")
        if not path.is_file():
            raise ActionInputError("prompt-file", f"file not found: {path}")
        return path
    if inputs.prompt:
        root = temp_root if temp_root and Path(temp_root).is_dir() else None
        path = Path(tempfile.mkdtemp(prefix="aw-harness-prompt-", dir=root)) / "prompt.txt"
        path.write_text(inputs.prompt + "\n", encoding="utf-8")
        return path
    raise ActionInputError("prompt", "required: set prompt (inline text) or prompt-file")


def default_artifact_name(runner: RunnerFacts, prefix: str = "aw-harness") -> str:
    """The artifact's name when the ``artifact-name`` input is empty: one per job."""
    return f"{prefix}-{runner.job or 'run'}"


def output_dir(inputs: ActionInputs, runner: RunnerFacts, workspace: Path) -> Path:
    """``output-dir`` (relative to the workspace), else a folder later steps see too
    (``paths.default_output_dir``: ``$RUNNER_TEMP/aw-harness`` or the workspace's
    ``.aw-harness``), else ``AW_OUTPUT_DIR``."""
    if inputs.output_dir:
        return _resolve(workspace, inputs.output_dir)
    return default_output_dir(runner, workspace) or runner.output_dir


def made_output_dir(inputs: ActionInputs, runner: RunnerFacts, workspace: Path) -> Path:
    """``output_dir``, created (and kept out of git inside the workspace); ``ActionInputError``
    naming ``output-dir`` when it cannot be."""
    folder = output_dir(inputs, runner, workspace)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        keep_out_of_git(folder, workspace)
    except OSError as exc:
        raise ActionInputError("output-dir", f"cannot create {folder}: {exc.strerror or exc}") from None
    return folder


@dataclass(frozen=True)
class FallbackRecords:
    """Where a run that could not start puts its records, read from the raw inputs (they may be
    the invalid ones): the ``output-dir`` input, else the default folder; ``upload-artifacts``
    unless it says false; the ``artifact-name`` input when it is a valid name."""

    folder: Path
    upload: bool
    artifact: str
    log_format: str


def fallback_records(env: Mapping[str, str], runner: RunnerFacts, workspace: Path) -> FallbackRecords:
    folder_input = raw_input(env, "output-dir")
    default = default_output_dir(runner, workspace) or runner.output_dir
    name = raw_input(env, "artifact-name")
    valid = bool(name) and not INVALID_ARTIFACT_CHARS & set(name)
    return FallbackRecords(
        folder=_resolve(workspace, folder_input) if folder_input else default,
        upload=raw_input(env, "upload-artifacts") not in ("false", "False", "FALSE"),
        artifact=name if valid else default_artifact_name(runner),
        log_format=raw_input(env, "log-format") or "grouped",
    )


def harness_env(
    inputs: ActionInputs, env: Mapping[str, str], out_dir: Path, workspace: Path, runner: RunnerFacts | None = None
) -> dict[str, str]:
    # no INPUT_* (the key inputs are passed below, under their variables' names) and none of the
    # job's runtime credentials: those stay the action's
    out = {k: v for k, v in env.items() if not k.upper().startswith("INPUT_") and k not in RUNTIME_VARS}
    for variable, input_name in action_inputs().items():
        value = inputs.credential(input_name)
        if value:
            out[variable] = value
    out[OUTPUT_DIR.name] = str(out_dir)
    out[WORKSPACE_VAR] = str(workspace)
    # the runner host's path of a file the container sees
    out.update(container_credential_files(env, runner or RunnerFacts.read(env), workspace))
    return out


def build_plan(
    inputs: ActionInputs,
    env: Mapping[str, str],
    cwd: Path,
    event: TriggerEvent | None = None,
    runner: RunnerFacts | None = None,
) -> RunPlan:
    """Raises ``ActionInputError`` naming the first input that cannot be used. ``runner``: the
    entry point's record of the runner's facts (read from ``env`` when a library caller passes none)."""
    runner = runner or RunnerFacts.read(env)
    workspace = runner.workspace_or(cwd)
    for name, value in (("safe-outputs-path", inputs.safe_outputs_path), ("dry-run", inputs.dry_run)):
        if value:
            raise ActionInputError(name, "only used with mode: apply")
    event = event or TriggerEvent.from_runner(runner)
    fork = ForkFiles.for_event(event.name, event.payload, runner, workspace, inputs.github_token)
    resolved = build_config(inputs, env, workspace, fork)
    require_workflow(inputs)
    wants_prompt = not inputs.workflow or inputs.prompt or inputs.prompt_file
    prompt = prompt_path(inputs, workspace, runner.runner_temp or None, fork) if wants_prompt else None
    workflow = workflow_request(inputs, prompt)
    if workflow is not None and workflow.checkpoint is not None:
        # the checkpoint's reviews count only as far as GitHub's record of its run vouches for them
        withheld = approvals_withheld(inputs.workflow_checkpoint_run, env, inputs.github_token, runner=runner)
        workflow = replace(workflow, approvals_withheld=withheld)
    if fork is not None and workflow is not None and workflow.workflow is not None:
        # what the steps run and may do comes from the base commit, like the config
        workflow = replace(workflow, workflow=fork.file(_resolve(workspace, str(workflow.workflow)), "workflow"))
    continuation = continue_request(inputs, env, workspace, runner)
    out_dir = made_output_dir(inputs, runner, workspace)
    return RunPlan(
        resolved=resolved,
        prompt_path=prompt or workspace / "prompt.txt",
        workspace=workspace,
        output_dir=out_dir,
        env=harness_env(inputs, env, out_dir, workspace, runner),
        upload=inputs.upload_artifacts,
        artifact_name=inputs.artifact_name or default_artifact_name(runner),
        event=event,
        fork=fork,
        workflow=workflow,
        continuation=continuation,
        runner=runner.for_harness(out_dir, workspace),
    )
