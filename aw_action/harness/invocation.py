"""One invocation (spec §7.1): config.json + prompt.txt in, one result out.

``Harness.run()`` loads config.json and prompt.txt, resolves the imports, assembles the run
(``context.assemble``), prompts it once with the imports and the prompt as one message, and
finishes it. Nothing raises past ``run()``: an ``InvocationError`` becomes a result with exit
code 2 and its record (a JSONL ``error`` and, where there is a step summary, a failure summary).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO

from aw_action.exits import InvocationError
from aw_action.harness.context import RunContext, assemble, resolve
from aw_action.run.config import RunConfig
from aw_action.run.config_files import apply_overrides, assemble_prompt, load_config, load_prompt, resolve_imports
from aw_action.run.provenance import record_inputs
from aw_action.run.redact import Redactor, run_redactor
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.sinks.invocation_failure import report_invocation_error
from aw_action.sinks.jsonl import JsonlSink

DEFAULT_OUTPUT_DIR = "/tmp/gh-aw"


def output_dir_from(env: Mapping[str, str]) -> Path:
    return Path(env.get("AW_OUTPUT_DIR") or DEFAULT_OUTPUT_DIR)


class Harness:
    """One invocation. ``cancel()`` may be called from a signal handler's callback at any time."""

    def __init__(
        self,
        config_path: Path,
        prompt_path: Path,
        env: Mapping[str, str] | None = None,
        *,
        stderr: IO[str] | None = None,
        config: RunConfig | None = None,
    ) -> None:
        self.config_path = config_path
        self.prompt_path = prompt_path
        self.env: dict[str, str] = dict(os.environ if env is None else env)
        self.output_dir = output_dir_from(self.env)
        self.workspace = Path(self.env.get("GITHUB_WORKSPACE") or os.getcwd())
        self.redactor: Redactor = run_redactor(self.env)
        self.jsonl = JsonlSink(self.redactor, stderr)
        self._preloaded = config
        self.context: RunContext | None = None
        self.state: RunState | None = None
        self._cancel_reason: str | None = None
        self.on_config: Callable[[RunConfig], None] | None = None
        """Called once config.json is loaded (the supervisor arms the run's deadline)."""
        self.explain: Callable[[InvocationError], InvocationError] | None = None
        """Rewords an invocation error for this entry point's users (the action names its inputs)."""

    def cancel(self, reason: str = "cancelled") -> None:
        """Stop the run as soon as possible; the outcome is ``reason`` (exit 1)."""
        self._cancel_reason = self._cancel_reason or reason
        if self.context is not None:
            self.context.cancel(reason)

    def error_line(self, message: str) -> None:
        self.jsonl.line(f"aw-harness: error: {message}")

    async def run(self) -> RunResult:
        model_name = "unknown"
        try:
            config = self._preloaded or load_config(self.config_path)
            model_name = config.engine.model
            if self.on_config is not None:
                self.on_config(config)
            self.redactor = run_redactor(self.env, config.observability.otlp.headers)
            self.jsonl = JsonlSink(self.redactor, self.jsonl.stream)
            prompt = load_prompt(self.prompt_path)
            imports = resolve_imports(config, self.workspace)
            for warning in apply_overrides(config):
                self.jsonl.line(f"aw-harness: warning: {warning}")
            model_name = resolve(config.engine.model).ref
            state = self.state = RunState.for_model(model_name)
            record_inputs(state, imports, prompt)
            context = self.context = await assemble(
                config,
                env=self.env,
                config_dir=self.config_path.parent.resolve(),
                output_dir=self.output_dir,
                workspace=self.workspace,
                redactor=self.redactor,
                jsonl=self.jsonl,
                state=state,
            )
        except InvocationError as raised:
            exc = self.explain(raised) if self.explain is not None else raised
            self.error_line(str(exc))
            report_invocation_error(exc, model_name, self.env, self.jsonl, self.redactor)
            return RunResult.invocation_error(exc, model_name, self.state)
        if self._cancel_reason:
            context.cancel(self._cancel_reason)
        await context.prompt(assemble_prompt(imports, prompt))
        return await context.finish()
