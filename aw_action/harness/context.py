"""An assembled run: config, environment, records, extensions and the one session, ready to prompt.

``assemble()`` builds a ``RunContext`` once (spec §7.1 steps 2-4): the run's state with its
limits, the built-in then the user's extensions, the provider for the model and the session with
its transcript. The context is then prompted once (a plain run) or more (a workflow step per
prompt) and finished once. Every failure while assembling raises ``InvocationError`` (exit 2),
before any model request.

Contracts:
- ``prompt()`` never raises for the agent's or the provider's sake; it returns how that prompt
  ended. A prompt is not started once the run is cancelled, stopped by its deadline, or an
  earlier prompt failed: the run's stop is sticky, a prompt's own abort is not.
- ``finish()`` is called exactly once, on success and on failure; it maps the run's stop reason
  to the result (``Outcome.of``), lets every sink close (``session_shutdown``) and disposes the
  session.
- ``cancel()`` may be called at any time, from a signal handler's callback included.
"""

from __future__ import annotations

import tempfile
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from aw_action.agent.session import AgentSession
from aw_action.agent.tools import ToolContext
from aw_action.agent.transcript import FILE_NAME, Transcript
from aw_action.ai.credentials import missing_credentials
from aw_action.ai.types import AssistantMessage, Model, Provider, UserMessage
from aw_action.config.resolve import ResolvedConfig
from aw_action.environment.runner import RunnerFacts
from aw_action.exits import HarnessError, InvocationError
from aw_action.extensions.api import HostServices
from aw_action.extensions.loader import ExtensionSpec, load_all
from aw_action.extensions.registry import Registry
from aw_action.extensions.runner import ExtensionRunner
from aw_action.harness.guards import RunGuards, guard_run
from aw_action.harness.model_switch import ModelSwitch
from aw_action.lazy_dataclass import dataclass
from aw_action.run.budget_kinds import resolve_limits
from aw_action.run.config import RunConfig
from aw_action.run.record import PromptRecord
from aw_action.run.redact import Redactor
from aw_action.run.state import RunState
from aw_action.security.confinement import spawn
from aw_action.security.confinement.sandbox import UNCONFINED
from aw_action.security.records.record_manifest import write_manifest
from aw_action.sinks.jsonl import JsonlSink
from aw_action.tools.processes import kill_all_agent_processes

if TYPE_CHECKING:
    from aw_action.run.result import RunResult

TRANSCRIPT_FILE = FILE_NAME
SYSTEM_PROMPT = (
    "You are an autonomous agent running one task inside a CI job; nobody will answer questions. "
    "Work in the current directory ({cwd}) using your tools (bash, read, write, edit). "
    "Keep tool output small. When the task is done, reply with a short final summary and make no "
    "further tool call."
)


@dataclass(frozen=True)
class PromptOutcome:
    """How one prompt ended; ``stop_reason`` is ``completed`` when the agent simply stopped."""

    index: int
    stop_reason: str
    error: str | None = None

    @property
    def completed(self) -> bool:
        return self.stop_reason == "completed"


TOOL_SERVER_START_S = 10.0
"""How long the end of a run waits for bash's spawn server to finish starting (``start_tool_server``)."""


class RunContext:
    def __init__(
        self,
        *,
        config: RunConfig,
        env: Mapping[str, str],
        output_dir: Path,
        workspace: Path,
        redactor: Redactor,
        jsonl: JsonlSink,
        state: RunState,
        services: HostServices,
        runner: ExtensionRunner,
        session: AgentSession,
        guards: RunGuards | None = None,
    ) -> None:
        self.config = config
        self.env = env
        self.runner_facts = services.runner_facts or RunnerFacts.read(env)
        """The runner's facts, as the entry point read them once."""
        self.output_dir = output_dir
        self.workspace = workspace
        self.redactor = redactor
        self.jsonl = jsonl
        self.state = state
        self.services = services
        self.runner = runner
        self.session = session
        self.guards = guards
        self._started = False
        self._cancelled: str | None = None
        self._failed: PromptOutcome | None = None
        self._tool_server_start: threading.Thread | None = None

    # ---- control -----------------------------------------------------------------------------

    def cancel(self, reason: str = "cancelled") -> None:
        """Stop the run: the prompt in flight is aborted and no further prompt starts."""
        self._cancelled = self._cancelled or reason
        self.session.cancel_pending(reason)

    def start_tool_server(self) -> None:
        """Start bash's spawn server before the first request when bash is one of the session's
        tools (``spawn.prestart``), so that the first command does not wait for it."""
        if "bash" in self.session.active_tool_names:
            tools = self.session.tool_context
            starting = threading.Thread(
                target=spawn.prestart,
                args=(tools.identity, tools.bash_confinement or UNCONFINED),
                name="aw-spawn-server-start",
                daemon=True,
            )
            starting.start()
            self._tool_server_start = starting

    def fail(self, stop_reason: str, error: str) -> None:
        """End the run with ``stop_reason`` after its prompts completed (a check of their result
        failed, e.g. ``invalid_output``); no further prompt starts. An earlier stop stands."""
        self._failed = self._failed or PromptOutcome(self.state.record.current_prompt, stop_reason, error)

    @property
    def stop_reason(self) -> str | None:
        """Why the run can prompt no more, if it cannot."""
        if self._cancelled:
            return self._cancelled
        if self._failed is not None:
            return self._failed.stop_reason
        return self.state.record.stop_requested

    async def start(self) -> None:
        """``session_start`` for every extension (once, before the first prompt)."""
        if not self._started:
            self._started = True
            await self.runner.emit_named("session_start", None)

    # ---- prompting ---------------------------------------------------------------------------

    async def prompt(self, text: str, source: str = "prompt") -> PromptOutcome:
        await self.start()
        record = self.state.record
        index = record.start_prompt()
        first_turn = self.state.ledger.next_turn
        outcome = await self._run_prompt(index, text, source)
        record.end_prompt(
            PromptRecord(
                index=index,
                source=source,
                first_turn=first_turn,
                turns=self.state.ledger.next_turn - first_turn,
                stop_reason=outcome.stop_reason,
                error=outcome.error,
            )
        )
        if not outcome.completed:
            self._failed = self._failed or outcome
        return outcome

    async def _run_prompt(self, index: int, text: str, source: str) -> PromptOutcome:
        stopped = self.stop_reason
        if stopped:
            return PromptOutcome(index, stopped, None)
        session = self.session
        try:
            end = await session.prompt([UserMessage.of(text, source=source)])
        except HarnessError as exc:
            session.abort(exc.stop_reason)
            return PromptOutcome(index, exc.stop_reason, str(exc))
        except Exception as exc:  # a bug must still leave a readable record
            session.abort("error")
            self.state.journal.warn(f"internal error: {type(exc).__name__}: {exc}")
            return PromptOutcome(index, "error", f"internal error: {type(exc).__name__}: {exc}")
        reason = self._cancelled or session.abort_reason
        if reason:
            return PromptOutcome(index, reason, session.signal.reason)
        if end.error:
            kind = next((m.error_kind for m in reversed(end.messages) if isinstance(m, AssistantMessage)), None)
            # when used, not at start (tests/cli/test_first_request_imports.py)
            from aw_action.run.result import error_stop_reason

            return PromptOutcome(index, error_stop_reason(kind), end.error)
        return PromptOutcome(index, "completed")

    # ---- the end -----------------------------------------------------------------------------

    async def finish(self) -> RunResult:
        """The run's result, after every sink closed and the session is disposed."""
        state = self.state
        session = self.session
        final = next((m.text for m in reversed(session.messages) if m.role == "assistant" and m.text), "")
        failed = self._failed
        if self._cancelled:
            stop, error = self._cancelled, failed.error if failed else None
        elif failed is not None:
            stop, error = failed.stop_reason, failed.error
        else:
            stop, error = state.record.stop_requested or "completed", None
        state.record.finish(stop, final)
        if self._tool_server_start is not None:  # a server still starting would outlive the kill below
            self._tool_server_start.join(TOOL_SERVER_START_S)
        if self.guards is not None:  # kill every agent process, then restore and verify
            self.guards.seal(state.journal)
            await self.runner.flush()  # the seal's records before session_end, the stream's last line
        else:
            kill_all_agent_processes()  # background and setsid children included
        transcript = session.transcript
        if transcript is not None and transcript.error:
            state.journal.degrade("transcript", transcript.error, "check the output dir's free space")
        # when used, not at start (tests/cli/test_first_request_imports.py)
        from aw_action.run.result import RunResult

        result = RunResult.ended(stop, state.model, state, error)
        try:
            await self.runner.emit_named("session_shutdown", result)
        finally:
            session.dispose()
        self._write_manifest()
        result.files = [str(p) for p in state.record.files]
        return result

    def records_root(self) -> Path:
        """Where the run's records are to be read after it: the output dir, or, when the agent
        renamed it away and put another in its place, the one the run held and wrote to (its
        ``/proc/self/fd`` path: nothing the agent made is read in its stead)."""
        folder = self.guards.ledger.folder if self.guards is not None else None
        if folder is not None and folder.moved():
            return Path(f"/proc/self/fd/{folder.fd}")
        return self.output_dir

    def _write_manifest(self) -> None:
        """``records.sha256`` of every record, last (``security/record_manifest``)."""
        if self.guards is None:
            return
        try:
            self.state.record.add_file(write_manifest(self.guards.ledger))
        except OSError as exc:
            self.jsonl.line(f"aw-harness: warning: the records' digests were not written: {exc}")


async def assemble(
    settings: ResolvedConfig,
    *,
    env: Mapping[str, str],
    output_dir: Path,
    workspace: Path,
    redactor: Redactor,
    jsonl: JsonlSink,
    state: RunState | None = None,
    read_only_steps: list[str] | None = None,
    extensions: Sequence[ExtensionSpec] = (),
    runner_facts: RunnerFacts | None = None,
    on_guards: Callable[[RunGuards], None] | None = None,
) -> RunContext:
    """Build the run (see the module docstring) for the resolved ``settings``. ``on_guards`` gets
    the run's guards as soon as they hold (before any extension loads): a run stopped while it
    assembles (a slow MCP server's start) is sealed through them all the same. ``state`` lets the
    caller record facts (the inputs' provenance) before the extensions load; it must be for
    ``settings.model``. ``read_only_steps``: a workflow's steps with a read-only bash policy
    (their sandbox must be enforceable, ``harness/sandbox_setup.py``). ``extensions``: built-ins
    the invocation adds after the standard ones (``loader.load_all``)."""
    config, model = settings.config, settings.model
    limits = resolve_limits(config)
    usable_output_dir(output_dir)
    state = state or RunState.for_model(model.ref)
    state.record.publish_limits({name: limit.limit for name, limit in limits.items()})
    registry = Registry()
    runner_box: list[ExtensionRunner] = []
    services = HostServices(
        config=config,
        model=model,
        state=state,
        env=env,
        output_dir=output_dir,
        workspace=workspace,
        registry=registry,
        post=lambda e: runner_box[0].post(e),
        redactor=redactor,
        jsonl=jsonl,
        config_dir=settings.path.parent.resolve(),
        limits=limits,
        runner_facts=runner_facts,
    )
    runner = ExtensionRunner(services)
    runner_box.append(runner)
    guards = guard_run(  # before any extension or tool: its warnings go out through the runner
        config,
        env=env,
        workspace=workspace,
        output_dir=output_dir,
        record=state.record,
        journal=state.journal,
        post=runner.post,
        read_only_steps=read_only_steps,
        runner=services.runner_facts,
    )
    if on_guards is not None:
        on_guards(guards)
    services.records = guards.ledger
    services.tool_env = guards.tool_env(env, redactor.secrets, output_dir)
    services.tool_identity, services.tool_sandbox = guards.identity, guards.tools
    state.record.extensions_loaded = await load_all(services, extensions)
    provider_for(model, registry)  # the run's own model: no credentials is exit 2, before any session
    guards.wipe(redactor.secrets)  # the SDK clients hold their keys now; tools start later
    transcript_path = output_dir / TRANSCRIPT_FILE
    session_id = str(uuid.uuid4())
    session = AgentSession(
        session_id=session_id,
        model=model,
        resolve_provider=ModelSwitch(model, registry, env, services.awf_routes),
        tools=registry.tool_list(),
        system_prompt=config.harness.system_prompt or SYSTEM_PROMPT.format(cwd=workspace),
        hooks=runner,
        tool_context=ToolContext(
            cwd=workspace,
            output_dir=output_dir,
            env=guards.tool_env(env, redactor.secrets, output_dir),
            scrub=redactor.text,
            identity=guards.identity,
            records=guards.ledger,
            sandbox=guards.tools,
        ),
        transcript=Transcript(
            transcript_path,
            session_id=session_id,
            cwd=str(workspace),
            model=model.ref,
            scrub=redactor.obj,
            records=guards.ledger,
        ),
    )
    state.record.add_file(transcript_path)
    runner.bind(session)
    return RunContext(
        config=config,
        env=env,
        output_dir=output_dir,
        workspace=workspace,
        redactor=redactor,
        jsonl=jsonl,
        state=state,
        services=services,
        runner=runner,
        session=session,
        guards=guards,
    )


def usable_output_dir(output_dir: Path) -> None:
    """Create ``output_dir`` and prove it takes a file; ``InvocationError`` (exit 2) naming it when
    it is a file, a symbolic link (the run holds the folder itself open and writes nothing
    through a link: ``security/record_dir``), read-only, full or unreachable, before any record
    is begun."""
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        if output_dir.is_symlink():
            raise InvocationError(f"output dir {output_dir}: is a symbolic link; name the folder itself")
        with tempfile.TemporaryFile(dir=output_dir) as probe:
            probe.write(b"\n")
    except OSError as exc:
        raise InvocationError(f"output dir {output_dir}: not usable: {exc.strerror or exc}") from None


def provider_for(model: Model, registry: Registry) -> Provider:
    provider = registry.provider(model.provider)
    if provider is None:
        raise missing_credentials(model, sorted(registry.providers))
    return provider
