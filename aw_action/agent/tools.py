"""The tool protocol the agent loop executes.

A tool is an ``AgentTool``: a name, a description, JSON-schema ``parameters`` and
``execute(call)``, where ``call`` is one ``ToolInvocation``: the model's call id, the validated
arguments, the operation's abort signal, the callback for partial output and the tool's
``ToolContext``. Inside the harness (the loop, the built-in tools, the safe-output and workflow
tools) a call travels as that one object; a wrapper that runs another tool passes it on whole.

A tool reports failure only by raising (any exception; ``ToolError`` for expected failures): the
loop turns the exception text into an error result for the model. A returned value is always a
success. ``on_update`` streams partial output; calls after the tool settles are ignored.

Extensions keep Pi's signature, ``execute(tool_call_id, args, signal, on_update, ctx)``: the
extension API adapts such a tool when it is registered (``extensions/pi_tools.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import field
from pathlib import Path
from typing import Any, Protocol

from aw_action.ai.types import AbortSignal, TextContent, ToolSpec
from aw_action.lazy_dataclass import dataclass
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import Confinement, ToolSandbox
from aw_action.security.records.record_guard import RecordWrites


class ToolError(Exception):
    """An expected tool failure; its message is what the model reads."""


@dataclass
class ToolResult:
    content: list[TextContent]
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def text(cls, text: str, **details: Any) -> ToolResult:
        return cls(content=[TextContent(text=text)], details=dict(details))


UpdateCallback = Callable[[ToolResult], Awaitable[None]]


@dataclass(frozen=True)
class ToolContext:
    """What a running tool may know about its environment."""

    cwd: Path
    output_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    """The complete environment for subprocesses; empty means inherit the process's. The
    harness passes its own environment minus model credentials, which the agent never needs."""
    scrub: Callable[[str], str] | None = None
    """The run's redactor: tools pass text they return or save under ``output_dir`` through it,
    so a secret a command prints (``env``, ``gh auth status``) lands in no artifact."""
    identity: ToolIdentity | None = None
    """The user tools act as (``security.confinement.identity``): bash runs as it, read/write/edit do their
    file I/O as it (``security.confinement.fileio``). ``None``: the harness's own user."""
    records: RecordWrites | None = None
    """The run's record ledger: a tool that leaves a file in ``output_dir`` (bash's output log)
    reports it once written, so tampering with it is found at the end of the run."""
    sandbox: ToolSandbox | None = None
    """The kernel sandbox of bash's commands and of the file helper (``security.confinement.sandbox``);
    ``None``: no plan (bash still runs behind the wrapper, ``no_new_privs`` only). A workflow
    step replaces it with the step's own for as long as the step runs."""

    @property
    def bash_confinement(self) -> Confinement | None:
        return self.sandbox.bash if self.sandbox is not None else None

    @property
    def file_confinement(self) -> Confinement | None:
        return self.sandbox.files if self.sandbox is not None else None


@dataclass(frozen=True)
class ToolInvocation:
    """One call of a tool, as the loop hands it to ``AgentTool.execute``."""

    id: str
    """The model's id of the call (``ToolCall.id``), which its result answers."""
    args: dict[str, Any]
    """The arguments, shimmed and validated against the tool's ``parameters``; ``tool_call``
    handlers may have changed them (as in Pi)."""
    signal: AbortSignal
    """The operation's abort signal: a tool stops when it is set."""
    on_update: UpdateCallback
    """Partial output for listeners (``tool_execution_update``); ignored once the tool settled."""
    ctx: ToolContext
    """Where and as whom the tool runs (``ToolContext``)."""

    def ensure_running(self, what: str = "Operation") -> None:
        """``ToolError("<what> aborted")`` once the signal is set: a tool checks before it starts."""
        if self.signal.aborted:
            raise ToolError(f"{what} aborted")


class AgentTool(Protocol):
    """A tool the model can call. ``parameters`` is a JSON Schema object validated before
    ``execute`` runs; ``execute`` gets the call (``ToolInvocation``) with the validated arguments.

    Optional attributes the loop reads when present: ``prepare_arguments(args) -> args`` (a shim
    run before validation) and ``execution_mode`` (``"parallel"``, the default, or
    ``"sequential"``: a batch that calls this tool runs one call at a time; Pi's
    ``executionMode``)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...

    async def execute(self, call: ToolInvocation) -> ToolResult: ...


def tool_spec(tool: AgentTool) -> ToolSpec:
    return ToolSpec(name=tool.name, description=tool.description, parameters=tool.parameters)
