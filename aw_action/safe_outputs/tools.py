"""The safe-output tools the agent sees, and the factory the harness registers them with.

``safe_output_tools(config, output_dir, workspace)`` returns one ``AgentTool`` per configured
kind (none in gh-aw mode, ``GITHUB_AW=true``, where gh-aw's own ``safeoutputs`` command is the
agent's path) and writes the config beside the records, so the artifact carries it. A refused
call (bad field, over ``max``, label not allowed, no change to propose) raises ``ToolError``:
the agent reads why, and nothing is recorded.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aw_action.agent.tools import AgentTool, ToolError, ToolInvocation, ToolResult
from aw_action.environment.runner import RunnerFacts
from aw_action.run.mode import gh_aw_mode
from aw_action.safe_outputs.config import SafeOutputsConfig, parse_safe_outputs, write_config_file
from aw_action.safe_outputs.kinds.base import GitUser, RequestError
from aw_action.safe_outputs.recorder import Recorder
from aw_action.safe_outputs.validate import kind_config
from aw_action.security.records.record_guard import RecordWrites


class SafeOutputTool:
    """One kind (``kinds/``) as a tool; the name is the record type."""

    def __init__(self, record_type: str, recorder: Recorder) -> None:
        self._type = record_type
        self._recorder = recorder
        kind, cfg = kind_config(record_type, recorder.config)
        self._description, self._parameters = kind.tool(cfg, recorder.config)

    @property
    def name(self) -> str:
        return self._type

    @property
    def description(self) -> str:
        return self._description

    @property
    def parameters(self) -> dict[str, Any]:
        return self._parameters

    async def execute(self, call: ToolInvocation) -> ToolResult:
        call.ensure_running()
        args, ctx = call.args, call.ctx
        sandbox = ctx.bash_confinement
        git_user = GitUser(ctx.identity, abi=sandbox.abi if sandbox is not None else None)
        try:
            payload = await asyncio.to_thread(self._recorder.record, self._type, args, git_user)
        except RequestError as exc:
            raise ToolError(f"{self._type} refused: {exc}") from None
        return ToolResult.text(json.dumps(payload, ensure_ascii=False), **payload)


def safe_output_tools(
    config: SafeOutputsConfig | Mapping[str, Any] | None,
    output_dir: Path,
    workspace: Path,
    *,
    env: Mapping[str, str] | None = None,
    scrub: Callable[[str], str] | None = None,
    records: RecordWrites | None = None,
    runner: RunnerFacts | None = None,
) -> list[AgentTool]:
    """The tools for the configured kinds; ``[]`` in gh-aw mode or when nothing is configured.

    ``config`` is the typed config or the raw ``safe-outputs`` mapping (``RunConfig.safe_outputs``);
    a raw mapping that is invalid raises ``SafeOutputsConfigError`` (an invocation error, exit 2).
    ``scrub`` is the run's redactor, applied to every recorded string; ``records`` the run's
    ledger, through whose held output dir the config and the records are written; ``runner``
    the run's record of the runner's facts (read from ``env`` when not given).
    """
    environ = dict(os.environ if env is None else env)
    if gh_aw_mode(environ):
        return []
    typed = config if isinstance(config, SafeOutputsConfig) else parse_safe_outputs(config)
    kinds = typed.enabled()
    if not kinds:
        return []
    write_config_file(Path(output_dir), typed, records)
    recorder = Recorder(typed, Path(output_dir), Path(workspace), environ, scrub, records, runner)
    return [SafeOutputTool(kind, recorder) for kind in kinds]
