"""The extension registry: handlers, tools and providers, in load order, with their owners.

Only the extension API (``register_*``, ``on``) and the loader (``snapshot``/``restore``,
``tampering``) change it. Built-in entries are protected: a user extension may not replace or
remove them; ``tampering`` names what one changed anyway, so the loader can undo it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import field, replace
from typing import Any

from aw_action.agent.tools import AgentTool
from aw_action.ai.types import Provider
from aw_action.lazy_dataclass import dataclass

STREAMING_DELTAS = frozenset({"message_update", "tool_execution_update"})
"""The events sent at token rate while a message or a tool's output streams in."""
Handler = Callable[[Any, Any], Any | Awaitable[Any]]
"""``handler(event, ctx)``, sync or async; ``ctx`` is an ``ExtensionContext`` (``api.py``)."""


@dataclass
class Registered:
    extension: str
    builtin: bool
    handler: Handler
    deltas: bool = True
    """For a ``*`` handler: whether it receives the streaming deltas too."""


@dataclass(frozen=True)
class Owned:
    """A registered tool or provider and who registered it."""

    value: Any
    owner: str
    builtin: bool


@dataclass
class Registry:
    handlers: dict[str, list[Registered]] = field(default_factory=dict)
    tools: dict[str, Owned] = field(default_factory=dict)
    providers: dict[str, Owned] = field(default_factory=dict)

    def handlers_for(self, event: str) -> list[Registered]:
        return list(self.handlers.get(event, []))

    def listeners(self, event: str) -> list[Registered]:
        """Who receives an agent event or harness record of this type: its own handlers, then the
        ``*`` ones (for a streaming delta, those that asked for deltas). Empty: nobody listens,
        and the core need not even build the event."""
        own = self.handlers.get(event, [])
        wildcard = self.handlers.get("*", [])
        if event in STREAMING_DELTAS:
            wildcard = [reg for reg in wildcard if reg.deltas]
        return [*own, *wildcard]

    def tool_list(self) -> list[AgentTool]:
        return [entry.value for entry in self.tools.values()]

    def provider(self, name: str) -> Provider | None:
        entry = self.providers.get(name)
        return None if entry is None else entry.value

    def add_handler(self, event: str, extension: str, builtin: bool, handler: Handler, deltas: bool = True) -> None:
        self.handlers.setdefault(event, []).append(Registered(extension, builtin, handler, deltas))

    def wrap_handlers(self, extension: str, wrap: Callable[[Handler], Handler]) -> None:
        """Replace every handler ``extension`` (a user extension) registered by ``wrap(handler)``."""
        for regs in self.handlers.values():
            for reg in regs:
                if reg.extension == extension and not reg.builtin:
                    reg.handler = wrap(reg.handler)

    def protected(self, kind: str, name: str) -> bool:
        entry = (self.tools if kind == "tool" else self.providers).get(name)
        return entry is not None and entry.builtin

    def put(self, kind: str, name: str, value: Any, owner: str, builtin: bool) -> None:
        (self.tools if kind == "tool" else self.providers)[name] = Owned(value, owner, builtin)

    def remove(self, kind: str, name: str) -> bool:
        table = self.tools if kind == "tool" else self.providers
        return table.pop(name, None) is not None

    def snapshot(self) -> Registry:
        """A copy (handler records copied too, so in-place edits can be undone)."""
        handlers = {k: [replace(r) for r in v] for k, v in self.handlers.items()}
        return Registry(handlers, dict(self.tools), dict(self.providers))

    def restore(self, saved: Registry) -> None:
        copy = saved.snapshot()
        self.handlers, self.tools, self.providers = copy.handlers, copy.tools, copy.providers

    def tampering(self, builtins: Registry) -> str | None:
        """What changed among ``builtins``' registrations since that snapshot, if anything."""
        for event, regs in builtins.handlers.items():
            if self.handlers.get(event, [])[: len(regs)] != regs:
                return f"it changed the built-in handlers of {event!r}"
        pairs = (("tool", builtins.tools, self.tools), ("provider", builtins.providers, self.providers))
        for kind, before, now in pairs:
            for name, entry in before.items():
                if entry.builtin and now.get(name) is not entry:
                    return f"it replaced or removed the built-in {kind} {name!r}"
        return None
