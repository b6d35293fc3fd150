"""One invocation (spec §7.1): config.json + prompt.txt in, one result out.

``Harness.run()`` first reads what must be read before the output dir changes (``read_inputs``:
a workflow's checkpoint), then moves an earlier run's records aside (``run_files.start_afresh``), then
takes the resolved config (an entry point resolves it before, the CLI here from config.json's path:
``config/resolve.py``) and loads prompt.txt, resolves the imports, assembles the run
(``context.assemble``), prompts it once with the imports and the prompt as one message (with an
``output-schema``, the answer is then checked and corrected: ``output_schema.py``), and
finishes it. Nothing raises past ``run()``: an ``InvocationError`` becomes a result with exit
code 2 and its record (a JSONL ``error`` and, where there is a step summary, a failure summary).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from aw_action.config import ConfigSources, ResolvedConfig, UnknownModel, resolve_config
from aw_action.environment.runner import RunnerFacts
from aw_action.exits import InvocationError
from aw_action.extensions.loader import ExtensionSpec
from aw_action.harness.context import RunContext, assemble
from aw_action.harness.guards import RunGuards
from aw_action.harness.output_schema import configured_schema, enforce_output_schema, with_instructions
from aw_action.harness.run_files import start_afresh
from aw_action.run.collector import start_over
from aw_action.run.config import RunConfig
from aw_action.run.mode import gh_aw_mode, gh_aw_phase
from aw_action.run.prompt_files import ResolvedImport, assemble_prompt, load_prompt, resolve_imports
from aw_action.run.provenance import record_appendix, record_inputs
from aw_action.run.record import Reporting
from aw_action.run.redact import Redactor, run_redactor
from aw_action.run.state import RunState
from aw_action.security.confinement.git_head import HeadCommitQuery
from aw_action.sinks.jsonl import JsonlSink
from aw_action.tools.processes import kill_all_agent_processes

if TYPE_CHECKING:
    from aw_action.harness.continuation import Continuation
    from aw_action.run.result import RunResult


class Harness:
    """One invocation. ``config`` is config.json's path (resolved when the run starts) or the
    config an entry point resolved already. ``cancel()`` may be called from a signal handler's
    callback at any time."""

    def __init__(
        self,
        config: Path | ResolvedConfig,
        prompt_path: Path,
        env: Mapping[str, str] | None = None,
        *,
        stderr: IO[str] | None = None,
        readable: bool = False,
        runner_facts: RunnerFacts | None = None,
    ) -> None:
        self._resolved = config if isinstance(config, ResolvedConfig) else None
        self.config_path = config.path if isinstance(config, ResolvedConfig) else config
        self.prompt_path = prompt_path
        self.env: dict[str, str] = dict(os.environ if env is None else env)
        self.runner_facts = runner_facts or RunnerFacts.read(self.env)
        """The runner's facts, read once (the entry point's when it read them already)."""
        self.output_dir = self.runner_facts.output_dir
        self.workspace = self.runner_facts.workspace_or(os.getcwd())
        self.redactor: Redactor = run_redactor(self.env)
        self.jsonl = JsonlSink(self.redactor, stderr, readable=readable)
        self.context: RunContext | None = None
        self._assembling: asyncio.Future[RunContext] | None = None
        self.guards: RunGuards | None = None
        """The run's guards once they hold, before the run is assembled (``end_unfinished`` seals them)."""
        self.state: RunState | None = None
        self._cancel_reason: str | None = None
        self.schema: dict[str, Any] | None = None
        """``harness.output-schema``, checked, once the config is loaded."""
        self.on_config: Callable[[RunConfig], None] | None = None
        """Called once config.json is loaded (the supervisor arms the run's deadline)."""
        self.appendix: tuple[str, str] | None = None
        """``(source, text)`` added after the prompt in the first message (the action's fenced
        event context)."""
        self.explain: Callable[[InvocationError], InvocationError] | None = None
        """Rewords an invocation error for this entry point's users (the action names its inputs)."""
        self.continue_from: Callable[[], Continuation] | None = None
        """Reads the earlier run's conversation this run continues (``harness/continuation.py``;
        raises ``InvocationError``), set by the entry point that took ``--continue-from``."""
        self.continuation: Continuation | None = None
        self.reporting = Reporting("gh-aw" if gh_aw_mode(self.env) else "cli")
        """Who reads the run's reports and where its records go (the action sets its own); the
        workflow it names is ``workflow_label``'s, set when the run starts."""

    def cancel(self, reason: str = "cancelled") -> None:
        """Stop the run as soon as possible; the outcome is ``reason`` (exit 1). While the run
        assembles (an extension's setup, an MCP server's start), the assembly is cancelled and the
        run ends at once (``end_unfinished``); a stop that came before the assembly began lets it
        finish and cancels the session it built. Call it on the run's event loop."""
        self._cancel_reason = self._cancel_reason or reason
        if self.context is not None:
            self.context.cancel(reason)
        elif self._assembling is not None and not self._assembling.done():
            self._assembling.cancel()

    def end_unfinished(self, reason: str, error: str) -> RunResult:
        """The result of a run that ends without its own finish (stopped while it still assembles,
        or stuck after a stop: ``supervisor.stuck_result``), with what is known so far: the run's
        guards sealed (its processes ended, a handed-over workspace and the file commands given
        back, the records checked) or, before there are guards, every agent process killed; the
        step summary written if the run did not get to it. Safe from the watchdog's thread (it
        only reads the run's state); never raises."""
        context = self.context
        guards = context.guards if context is not None else self.guards
        if guards is None:
            kill_all_agent_processes(deadline_s=1.0)  # with guards, their seal ends the processes first
        state = self.state
        model = state.model if state else "unknown"
        # when used, not at start (tests/cli/test_first_request_imports.py)
        from aw_action.run.result import RunResult

        result = RunResult.ended(reason, model, state, error)
        if state is not None:
            if guards is not None:
                with contextlib.suppress(Exception):
                    guards.seal(state.journal)
            state.record.finish(reason, "")
            result.files = [str(p) for p in state.record.files]
            with contextlib.suppress(Exception):
                self._last_summary(state, result)
        return result

    def _last_summary(self, state: RunState, result: RunResult) -> None:
        summary = self.runner_facts.step_summary
        if not summary or state.record.summary_written:
            return
        state.record.summary_written = True
        # when used, not at start (tests/cli/test_first_request_imports.py)
        from aw_action.sinks.summary import append_step_summary, render_run_summary

        append_step_summary(Path(summary), lambda rows: render_run_summary(result, rows), self.redactor)

    def workflow_label(self) -> str | None:
        """The workflow the step summary's header names: GitHub's (``GITHUB_WORKFLOW``) in the
        action and inside gh-aw, the config file's name on the command line."""
        if self.reporting.audience == "cli":
            return self.config_path.name
        return self.runner_facts.workflow or None

    def refuse(self, exc: InvocationError, model: str) -> RunResult:
        """The invocation cannot run: its records (the JSONL ``error``, the failure summary) and
        its result (exit 2), whose closing line says what is wrong once (``sinks/closing.py``).
        Entry points that fail before ``run()`` use it too."""
        # when used, not at start (tests/cli/test_first_request_imports.py)
        from aw_action.run.result import RunResult

        result = RunResult.invocation_error(exc, model, self.state)
        # when used, not at start (tests/cli/test_first_request_imports.py)
        from aw_action.sinks.invocation_failure import report_invocation_error

        report_invocation_error(result, self.reporting, self.runner_facts, self.jsonl, self.redactor)
        return result

    async def run(self) -> RunResult:
        try:
            return await self._invoke()
        finally:
            state = self.state
            if state is not None and state.record.workspace_commit is not None:
                asked, state.record.workspace_commit = state.record.workspace_commit, None
                asked.cancel()  # the run ended before its replay record read it: git ends too

    async def _invoke(self) -> RunResult:
        model_name = "unknown"
        self.reporting = replace(self.reporting, workflow=self.workflow_label())
        try:
            self.read_inputs()
            self.continuation = self.continue_from() if self.continue_from is not None else None
            self.reporting = replace(self.reporting, workflow=self.workflow_label())  # a workflow's, once read
            moved = start_afresh(self.output_dir, self.env)
            if moved is not None:
                self.jsonl.line(f"aw-harness: the earlier run's records were moved to {moved}")
            resolved = self._resolved or resolve_config(ConfigSources(self.config_path), self.env)
            config, model_name = resolved.config, resolved.model.ref
            if self.on_config is not None:
                self.on_config(config)
            self.redactor = run_redactor(self.env, config.observability.otlp.headers)
            self.jsonl = JsonlSink(self.redactor, self.jsonl.stream, readable=self.jsonl.readable)
            self.schema = configured_schema(config, resolved.path.parent)
            self.check_config(config)
            prompt = self.load_prompt()
            imports = resolve_imports(config, self.workspace)
            for warning in resolved.warnings:
                self.jsonl.line(f"aw-harness: warning: {warning}")
            state = self.state = RunState.for_model(model_name)
            state.record.workspace_commit = HeadCommitQuery(self.workspace)  # git runs while the SDK imports
            state.record.reporting = self.reporting
            state.record.phase = gh_aw_phase(self.env)
            record_inputs(state, imports, prompt)
            if self.continuation is not None:
                # when used, not at start (tests/cli/test_first_request_imports.py)
                from aw_action.harness.continuation import fit_problem

                problem = fit_problem(self.continuation, prompt, resolved.model, config)
                if problem is not None:
                    raise InvocationError(problem)
            if self.appendix is not None:
                record_appendix(state, *self.appendix)
            self._assembling = asyncio.ensure_future(
                assemble(
                    resolved,
                    env=self.env,
                    output_dir=self.output_dir,
                    workspace=self.workspace,
                    redactor=self.redactor,
                    jsonl=self.jsonl,
                    state=state,
                    read_only_steps=self.read_only_steps(),
                    extensions=self.extensions(),
                    runner_facts=self.runner_facts,
                    on_guards=self._hold_guards,
                )
            )
            try:
                context = self.context = await self._assembling
            finally:
                self._assembling = None
        except InvocationError as raised:
            if isinstance(raised, UnknownModel):
                model_name = raised.requested
            return self.refuse(self.explain(raised) if self.explain is not None else raised, model_name)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():  # this task's own cancel: not ours to end
                raise
            reason = self._cancel_reason or "cancelled"
            return self.end_unfinished(reason, f"stopped while the run was starting ({reason})")
        start_over()  # assembled, the SDK imported: what lives now lives to the end (run/collector.py)
        context.start_tool_server()
        if self._cancel_reason:
            context.cancel(self._cancel_reason)
        continuation = self.continuation
        if continuation is not None:
            # when used, not at start (tests/cli/test_first_request_imports.py)
            from aw_action.harness.continuation import section, seed

            state.record.continues = seed(context.session, continuation)
            self.jsonl.line(
                f"aw-harness: continuing session {continuation.session_id} ({len(continuation.messages)} messages) "
                f"from {continuation.where}"
            )
        await self.drive(context, imports, prompt)
        if continuation is not None:
            state.record.summary_sections.append(section(continuation, state.ledger))
        return await context.finish()

    def _hold_guards(self, guards: RunGuards) -> None:
        self.guards = guards

    def read_inputs(self) -> None:
        """Read what must be read before the output dir's earlier records move aside (raises
        ``InvocationError``): nothing here; a workflow invocation reads its checkpoint, which
        is checked against the ``records.sha256`` beside it."""

    def check_config(self, config: RunConfig) -> None:
        """What this invocation checks of the resolved config before any session (raises
        ``InvocationError``): nothing here; a workflow checks its steps' ``permissions.mcp``
        against the configured MCP servers."""

    def load_prompt(self) -> str:
        """The prompt text (raises ``InvocationError``); a workflow invocation makes the first
        step's prompt here, before any session exists."""
        return load_prompt(self.prompt_path)

    def read_only_steps(self) -> list[str]:
        """The workflow steps whose bash policy is read-only (none outside a workflow); called
        after ``load_prompt``."""
        return []

    def extensions(self) -> list[ExtensionSpec]:
        """Built-in extensions this invocation adds to the standard ones (none; a replay adds the
        one that plays and checks the recording)."""
        return []

    async def drive(self, context: RunContext, imports: list[ResolvedImport], prompt: str) -> None:
        """Prompt the assembled run: once, with the imports and the prompt as one message, then
        hold the answer to ``output-schema`` (a workflow invocation prompts once per step)."""
        first = assemble_prompt(imports, prompt)
        if self.appendix is not None:
            first = f"{first}\n\n{self.appendix[1]}"
        await context.prompt(with_instructions(first, self.schema))
        if self.schema is not None:
            await enforce_output_schema(context, self.schema)
