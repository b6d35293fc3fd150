"""One workflow invocation: the run of a declarative workflow (docs/workflows.md) in one session.

``WorkflowHarness`` is a ``Harness`` (config.json, the stop scheme, the records and the result
are the same) that loads a workflow or a checkpoint before anything runs and then, instead of
one prompt, runs the workflow's steps as prompts of the assembled run
(``step_runner.ContextStepRunner``) until the workflow is done or paused.

After every change of the workflow's state the checkpoint is rewritten (atomically, through the
run's redactor) in the output dir as ``workflow-checkpoint.json``: it carries the state and the
conversation, so a later job resumes from it. Progress is announced as ``workflow_step``
records, the final state as one ``workflow`` record (JSONL and the unified session, which
``aw-harness audit`` reads), and the step summary gets the workflow's section.

How the run ends (``Outcome.of``): ``completed`` when the workflow is done; ``paused`` (exit 0)
when it waits for a review or a step asked to pause; ``max_step_visits`` (exit 1) when the loop
guard paused it; a failed step ends with its prompt's stop reason (``budget_exceeded``,
``timeout``, ``cancelled``, ...) and ``step_incomplete`` when the agent kept ending its turn
without completing the step; ``invocation_error`` (exit 2) when a step requires a tool the run
does not have (checked before the first prompt).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import IO

from aw_action.agent.events import HarnessEvent
from aw_action.config import ResolvedConfig
from aw_action.environment.runner import RunnerFacts
from aw_action.exits import InvocationError
from aw_action.extensions.bash_policy import variable_names, variable_values
from aw_action.harness.context import TRANSCRIPT_FILE, RunContext
from aw_action.harness.invocation import Harness
from aw_action.harness.step_runner import ContextStepRunner
from aw_action.harness.workflow_start import CHECKPOINT_FILE, WorkflowStart, prepare_start
from aw_action.run.config import RunConfig
from aw_action.run.prompt_files import ResolvedImport, import_block
from aw_action.workflows.authorize import mcp_selector_problems
from aw_action.workflows.checkpoint import make_checkpoint, messages_to_json, write_checkpoint
from aw_action.workflows.driver import WorkflowRun
from aw_action.workflows.engine import step_prompt
from aw_action.workflows.graph import missing_tools
from aw_action.workflows.render import audit_record, summary_markdown
from aw_action.workflows.request import WorkflowRequest
from aw_action.workflows.state import RunState

RESUME_HINT = (
    f"To decide, resume from this run's `{CHECKPOINT_FILE}` (in its output dir and artifact): "
    '`aw-harness workflow resume CHECKPOINT --workflow FILE --approve` or `--request-changes "what to change"` '
    "(`--workflow` may be left out when the workflow file is inside the workspace); in the action, "
    "inputs `workflow-checkpoint` and `workflow-decision`."
)
PAUSE_STOPS = {"loop_guard": "max_step_visits", "failed": "step_incomplete"}
"""Stop reasons of the pauses that fail the run (a gate or a step's ``$pause`` ends it ``paused``)."""


class WorkflowHarness(Harness):
    def __init__(
        self,
        config: Path | ResolvedConfig,
        request: WorkflowRequest,
        env: Mapping[str, str] | None = None,
        *,
        stderr: IO[str] | None = None,
        readable: bool = False,
        runner_facts: RunnerFacts | None = None,
    ) -> None:
        super().__init__(
            config, Path("workflow-input.txt"), env, stderr=stderr, readable=readable, runner_facts=runner_facts
        )
        self.request = request
        self.start: WorkflowStart | None = None
        self.checkpoint_path = self.output_dir / CHECKPOINT_FILE
        self.final: RunState | None = None
        self._announced = 0
        self._checkpoint_error: str | None = None
        self._section: int | None = None

    # ---- before the session ------------------------------------------------------------------

    def read_inputs(self) -> None:
        """Load the workflow and the checkpoint, while the ``records.sha256`` of the run that
        wrote the checkpoint still lies beside it (a resume in the same output dir moves it)."""
        self.start = prepare_start(self.request, self.workspace)

    def check_config(self, config: RunConfig) -> None:
        """Every step's ``permissions.mcp`` names a configured MCP server (exit 2 otherwise)."""
        assert self.start is not None, "read_inputs ran first"
        problems = mcp_selector_problems(self.start.workflow.definition.steps, config.mcp_servers)
        if problems:
            raise InvocationError(f"{self.start.workflow.source}: {problems[0]}")

    def load_prompt(self) -> str:
        """The starting step's prompt is the run's prompt."""
        start = self.start
        assert start is not None, "read_inputs ran first"
        if start.state.status != "running":
            return ""
        return step_prompt(start.workflow, start.state)

    def workflow_label(self) -> str | None:
        """The declarative workflow's id names the run, whoever started it."""
        if self.start is None:
            return super().workflow_label()
        return self.start.workflow.definition.id

    def read_only_steps(self) -> list[str]:
        if self.start is None:
            return []
        steps = self.start.workflow.definition.steps
        return [step_id for step_id, step in steps.items() if step.permissions.bash.mode == "read-only"]

    # ---- the run -----------------------------------------------------------------------------

    async def drive(self, context: RunContext, imports: list[ResolvedImport], prompt: str) -> None:
        start = self.start
        assert start is not None, "load_prompt ran first"
        try:
            await self._run(context, start, imports)
        except Exception as exc:  # a bug must still leave a readable record and a finished run
            message = f"internal error in the workflow: {type(exc).__name__}: {exc}"
            context.state.journal.warn(message)
            context.fail("error", message)
        await context.runner.flush()

    async def _run(self, context: RunContext, start: WorkflowStart, imports: list[ResolvedImport]) -> None:
        if self.schema is not None:
            context.state.journal.warn("harness.output-schema does not apply to a workflow run; it was not checked")
        # the first step's message carries the imports and the action's fenced event context
        blocks = [*(import_block(i) for i in imports), *([self.appendix[1]] if self.appendix else [])]
        preamble = "\n\n".join(blocks) if not start.resumed else ""
        runner = ContextStepRunner(context, preamble)
        self._announced = start.earlier_events
        if start.messages:
            context.session.replace_messages(start.messages, "workflow resume")
        for note in start.notes:
            context.runner.post(HarnessEvent("workflow_resume", {"note": note}))
        missing = missing_tools(start.workflow.definition, runner.available)
        if missing:
            where = "; ".join(f"step {step!r} requires {', '.join(tools)}" for step, tools in missing.items())
            self._save(context, start, start.state)
            context.fail("invocation_error", f"the run does not have the tools the workflow requires: {where}")
            return
        names = variable_names(context.config)
        run = WorkflowRun(
            start.workflow,
            start.state,
            runner,
            save=lambda state: self._save(context, start, state),
            cwd=str(context.workspace),
            variables=variable_values(names, context.session.tool_context.env),
        )
        self._save(context, start, start.state)
        final = self.final = await run.run()
        self._conclude(context, final)

    def _conclude(self, context: RunContext, final: RunState) -> None:
        context.runner.post(HarnessEvent("workflow", audit_record(final)))
        if self._checkpoint_error and final.status != "done":
            context.fail("error", f"the workflow checkpoint could not be written: {self._checkpoint_error}")
        elif final.pause is not None and final.pause.kind in ("gate", "requested"):
            context.state.record.request_stop("paused")  # a clean end (exit 0): no error to report
        elif final.pause is not None:
            context.fail(PAUSE_STOPS[final.pause.kind], final.pause.reason)

    # ---- the checkpoint and the records ------------------------------------------------------

    def _save(self, context: RunContext, start: WorkflowStart, state: RunState) -> None:
        for entry in state.trail[self._announced :]:
            fields = entry.model_dump(exclude_defaults=True)
            fields = {"change": fields.pop("event"), **fields}  # "event" names the record itself
            context.runner.post(HarnessEvent("workflow_step", fields))
        self._announced = len(state.trail)
        hint = RESUME_HINT if state.pending_gate is not None else ""
        sections, text = context.state.record.summary_sections, summary_markdown(state, hint)
        if self._section is None:  # others only append: the index stays this section's
            self._section = len(sections)
            sections.append(text)
        else:
            sections[self._section] = text
        checkpoint = make_checkpoint(
            start.workflow,
            state,
            history_ref=TRANSCRIPT_FILE,
            messages=messages_to_json(context.session.messages),
        )
        try:
            write_checkpoint(self.checkpoint_path, checkpoint, context.redactor.text, context.services.records)
        except (OSError, ValueError) as exc:
            if self._checkpoint_error is None:
                self._checkpoint_error = f"{self.checkpoint_path}: {exc}"
                context.state.journal.warn(f"workflow checkpoint not written: {self._checkpoint_error}")
                context.state.journal.degrade(
                    "workflow-checkpoint", self._checkpoint_error, "check that the output dir is writable and has room"
                )
            return
        self._checkpoint_error = None
        context.state.record.add_file(self.checkpoint_path)
