"""The extension API: what ``setup(api)`` receives, and the context handlers receive.

An extension is a module with a top-level ``setup(api)``. It calls ``api.on(event, handler)``
(handlers are ``handler(event, ctx)``, sync or async), ``api.register_tool(...)`` and
``api.register_provider(name, provider)``. Built-ins load first; user extensions after, and
may not replace a built-in's tool or provider (refused with a warning).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aw_action.agent.events import AnyMessage, HarnessEvent
from aw_action.agent.tools import AgentTool, FunctionTool, ToolContext, ToolResult, UpdateCallback
from aw_action.ai.types import AbortSignal, Provider
from aw_action.config import RunConfig
from aw_action.extensions.state import RunState
from aw_action.sinks.jsonl import JsonlSink
from aw_action.sinks.redact import Redactor

if TYPE_CHECKING:
    from aw_action.agent.session import AgentSession

Handler = Callable[[Any, "ExtensionContext"], Any | Awaitable[Any]]

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
class Registered:
    extension: str
    builtin: bool
    handler: Handler


@dataclass
class Registry:
    """Everything extensions registered, in load order."""

    handlers: dict[str, list[Registered]] = field(default_factory=dict)
    tools: dict[str, tuple[AgentTool, str, bool]] = field(default_factory=dict)
    providers: dict[str, tuple[Provider, str, bool]] = field(default_factory=dict)


@dataclass
class HostServices:
    """Shared by every API object of one run."""

    config: RunConfig
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


class _RunView:
    """What both the setup-time API and the handler context expose: the run's facts and records."""

    def __init__(self, extension: str, services: HostServices) -> None:
        self.name = extension
        self._s = services

    @property
    def config(self) -> RunConfig:
        return self._s.config

    @property
    def state(self) -> RunState:
        return self._s.state

    @property
    def env(self) -> Mapping[str, str]:
        return self._s.env

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
        self._s.state.warnings.append(message)
        self.emit("warning", message=message, extension=self.name, **fields)


class ExtensionAPI(_RunView):
    """Handed to ``setup(api)``; one object per extension."""

    def __init__(self, name: str, builtin: bool, services: HostServices) -> None:
        super().__init__(name, services)
        self.builtin = builtin

    @property
    def services(self) -> HostServices:
        """Run-wide services (redactor, JSONL sink, registry); for built-in extensions."""
        return self._s

    def on(self, event: str, handler: Handler) -> None:
        if event not in EVENT_NAMES:
            raise ValueError(f"unknown event {event!r}; known: {', '.join(sorted(EVENT_NAMES))}")
        self._s.registry.handlers.setdefault(event, []).append(Registered(self.name, self.builtin, handler))

    def register_tool(
        self,
        tool: AgentTool | None = None,
        *,
        name: str | None = None,
        description: str = "",
        parameters: dict[str, Any] | None = None,
        execute: Callable[[str, dict[str, Any], AbortSignal, UpdateCallback, ToolContext], Awaitable[ToolResult]]
        | None = None,
    ) -> bool:
        """Register a tool object, or build one from ``name``/``description``/``parameters``/
        ``execute``. Returns False (with a warning) when a user extension tries to replace a
        built-in's tool."""
        if tool is None:
            if not name or execute is None:
                raise ValueError("register_tool needs a tool object or name= and execute=")
            tool = FunctionTool(name, description, parameters or {"type": "object", "properties": {}}, execute)
        existing = self._s.registry.tools.get(tool.name)
        if existing is not None and existing[2] and not self.builtin:
            self.warn(f"extension {self.name} may not replace built-in tool {tool.name!r}; refused")
            return False
        self._s.registry.tools[tool.name] = (tool, self.name, self.builtin)
        return True

    def register_provider(self, name: str, provider: Provider) -> bool:
        existing = self._s.registry.providers.get(name)
        if existing is not None and existing[2] and not self.builtin:
            self.warn(f"extension {self.name} may not replace built-in provider {name!r}; refused")
            return False
        self._s.registry.providers[name] = (provider, self.name, self.builtin)
        return True

    def unregister_tool(self, name: str) -> bool:
        existing = self._s.registry.tools.get(name)
        if existing is None:
            return False
        if existing[2] and not self.builtin:
            self.warn(f"extension {self.name} may not unregister built-in tool {name!r}; refused")
            return False
        del self._s.registry.tools[name]
        return True


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
