"""The extension API: what ``setup(api)`` receives, and the context handlers receive.

An extension is a module with a top-level ``setup(api)``. It calls ``api.on(event, handler)``
(handlers are ``handler(event, ctx)``, sync or async), ``api.register_tool(...)`` and
``api.register_provider(name, provider)``. Built-ins load first; user extensions after, and
may not replace a built-in's tool or provider (refused with a warning). A handler may change the
session's model, system prompt and options for the requests that follow (``ExtensionContext.
set_model``; the errors it raises, ``UnknownModelError`` and ``ModelUnavailableError``, are
importable from here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aw_action.agent.events import AnyMessage, HarnessEvent
from aw_action.agent.session import ModelUnavailableError as ModelUnavailableError
from aw_action.agent.tools import AgentTool
from aw_action.ai.catalog import UnknownModelError as UnknownModelError
from aw_action.ai.types import Model, Provider, StreamOptions
from aw_action.config.resolve import switch_model
from aw_action.environment.runner import RunnerFacts
from aw_action.extensions.pi_tools import FunctionTool, PiExecute, as_agent_tool
from aw_action.extensions.registry import Handler, Registry
from aw_action.lazy_dataclass import dataclass
from aw_action.run.budget_kinds import Limit
from aw_action.run.config import RunConfig
from aw_action.run.redact import Redactor
from aw_action.run.state import RunState
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import ToolSandbox
from aw_action.security.records.record_guard import RecordWrites
from aw_action.sinks.jsonl import JsonlSink

if TYPE_CHECKING:
    from aw_action.agent.session import AgentSession

EVENT_NAMES = frozenset(
    {
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "request_end",
        "harness",
        "*",
        "context",
        "tool_call",
        "tool_result",
        "before_provider_request",
        "before_provider_payload",
        "after_provider_response",
        "session_start",
        "session_shutdown",
    }
)
"""``*`` receives every event (not hooks); ``harness`` receives harness records;
``session_start``/``session_shutdown`` bracket the run (before the prompt / after it settled)."""


@dataclass
class HostServices:
    """Shared by every API object of one run."""

    config: RunConfig
    model: Model
    """The run's model as the catalog resolved it, once (``config/resolve.py``)."""
    state: RunState
    env: Mapping[str, str]
    output_dir: Path
    workspace: Path
    registry: Registry
    post: Callable[[HarnessEvent], None]
    """Queue a harness record; it is dispatched at the next event boundary (never lost)."""
    redactor: Redactor
    jsonl: JsonlSink
    config_dir: Path
    limits: Mapping[str, Limit] = field(default_factory=dict)
    """The run's budgets by kind name (``run/budget_kinds.resolve_limits``), resolved once."""
    records: RecordWrites | None = None
    """The run's record ledger (``security/record_guard``): every record file writer reports
    what it wrote, so tampering is found at the end of the run."""
    awf_routes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """What AWF's api-proxy serves (``ai/providers.ProviderSet.awf_routes``; provider setup)."""
    tool_env: dict[str, str] = field(default_factory=dict)
    """The tools' environment (``ToolContext.env``), set once the run's guards are up: what an
    MCP stdio server starts from (``extensions/mcp_servers.py``)."""
    tool_identity: ToolIdentity | None = None
    """The tools' user (``ToolContext.identity``): an MCP stdio server runs as it."""
    tool_sandbox: ToolSandbox | None = None
    """The tools' sandbox outside any workflow step (``ToolContext.sandbox``): an MCP stdio
    server runs in its command confinement."""
    runner_facts: RunnerFacts | None = None
    """The runner's facts, read once by the entry point (read from ``env`` when not given)."""

    def __post_init__(self) -> None:
        if self.runner_facts is None:
            self.runner_facts = RunnerFacts.read(self.env)


class _RunView:
    """What both the setup-time API and the handler context expose: the run's facts and records."""

    def __init__(self, extension: str, services: HostServices) -> None:
        self.name = extension
        self._s = services

    @property
    def config(self) -> RunConfig:
        return self._s.config

    @property
    def model(self) -> Model:
        return self._s.model

    @property
    def state(self) -> RunState:
        return self._s.state

    @property
    def env(self) -> Mapping[str, str]:
        return self._s.env

    @property
    def runner_facts(self) -> RunnerFacts:
        """The runner's facts (``environment/runner.py``): read its fields, never the variables."""
        assert self._s.runner_facts is not None
        return self._s.runner_facts

    @property
    def output_dir(self) -> Path:
        return self._s.output_dir

    @property
    def workspace(self) -> Path:
        return self._s.workspace

    def emit(self, name: str, **fields: Any) -> None:
        """Emit a harness record (JSONL ``event`` = ``name``)."""
        self._s.post(HarnessEvent(name, fields))

    def warn(self, message: str, **fields: Any) -> None:
        self._s.state.journal.warn(message, extension=self.name, **fields)

    def degrade(self, subsystem: str, detail: str, hint: str) -> None:
        """Mark part of the run's record as incomplete; the step summary shows it with ``hint``."""
        self._s.state.journal.degrade(subsystem, detail, hint)


class ExtensionAPI(_RunView):
    """Handed to ``setup(api)``; one object per extension."""

    def __init__(self, name: str, builtin: bool, services: HostServices) -> None:
        super().__init__(name, services)
        self.builtin = builtin

    @property
    def services(self) -> HostServices:
        """Run-wide services (redactor, JSONL sink, registry); for built-in extensions."""
        return self._s

    def on(self, event: str, handler: Handler, *, deltas: bool = True) -> None:
        """``handler(event, ctx)`` for every ``event``; ``deltas=False`` on ``*``: every event but
        the streaming deltas (``message_update``, ``tool_execution_update``)."""
        if event not in EVENT_NAMES:
            raise ValueError(f"unknown event {event!r}; known: {', '.join(sorted(EVENT_NAMES))}")
        self._s.registry.add_handler(event, self.name, self.builtin, handler, deltas)

    def register_tool(
        self,
        tool: AgentTool | None = None,
        *,
        name: str | None = None,
        description: str = "",
        parameters: dict[str, Any] | None = None,
        execute: PiExecute | None = None,
    ) -> bool:
        """Register a tool object, or build one from ``name``/``description``/``parameters``/
        ``execute``. ``execute`` is Pi's, ``execute(tool_call_id, args, signal, on_update, ctx)``;
        a tool object may have Pi's or the harness's ``execute(call)`` (``pi_tools.as_agent_tool``
        adapts it here, once). Returns False (with a warning) when a user extension tries to
        replace a built-in's tool."""
        if tool is None:
            if not name or execute is None:
                raise ValueError("register_tool needs a tool object or name= and execute=")
            tool = FunctionTool(name, description, parameters or {"type": "object", "properties": {}}, execute)
        tool = as_agent_tool(tool)
        return self._put("tool", tool.name, tool)

    def register_provider(self, name: str, provider: Provider) -> bool:
        return self._put("provider", name, provider)

    def _put(self, kind: str, name: str, value: Any) -> bool:
        if self._s.registry.protected(kind, name) and not self.builtin:
            self.warn(f"extension {self.name} may not replace built-in {kind} {name!r}; refused")
            return False
        self._s.registry.put(kind, name, value, self.name, self.builtin)
        return True

    def unregister_tool(self, name: str) -> bool:
        if self._s.registry.protected("tool", name) and not self.builtin:
            self.warn(f"extension {self.name} may not unregister built-in tool {name!r}; refused")
            return False
        return self._s.registry.remove("tool", name)


class ExtensionContext(_RunView):
    """What a handler gets besides the event: the session's public API and the run's facts."""

    def __init__(self, extension: str, services: HostServices, session: AgentSession) -> None:
        super().__init__(extension, services)
        self.extension = extension
        self.session = session

    @property
    def messages(self) -> list[AnyMessage]:
        return self.session.messages

    def steer(self, text: str) -> None:
        self.session.steer(text)

    def follow_up(self, text: str) -> None:
        self.session.follow_up(text)

    def abort(self, reason: str | None = None) -> None:
        self.session.cancel_pending(reason or "aborted")

    # ---- the session's config (seed 001): takes effect at the next save point ----------------

    @property
    def current_model(self) -> Model:
        """The model the next request will use (the latest set, not the one in flight)."""
        return self.session.model

    def set_model(self, model: str | Model) -> Model:
        """Use ``model`` (a catalog name, ``provider/model``, or a ``Model``) from the next save
        point: never for a request in flight. Returns the resolved model (a name as config.json's
        ``engine.model`` is: ``config/resolve.switch_model``). ``UnknownModelError`` for a name
        the catalog does not know; ``ModelUnavailableError`` when the run cannot reach
        it (no credentials; inside gh-aw, not routed by AWF). Nothing changes when it raises."""
        resolved = switch_model(model, self.env) if isinstance(model, str) else model
        self.session.set_model(resolved)
        return resolved

    def set_system_prompt(self, prompt: str) -> None:
        """Use ``prompt`` as the system prompt from the next save point."""
        self.session.set_system_prompt(prompt)

    def set_options(self, options: StreamOptions) -> None:
        """Use ``options`` for requests from the next save point (budget gates still cap each
        request's ``max_tokens``)."""
        self.session.set_options(options)
