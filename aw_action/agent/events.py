"""Typed agent events and hook payloads.

Events describe what is happening; they are delivered to listeners in a fixed order (see
``loop.py``). Hook payloads are events whose handlers may return a result that changes what
happens next (``context``, ``tool_call``, ``tool_result``, the provider hooks).

``HarnessEvent`` carries the harness's own records (retry, steering, budget_exceeded, repair,
compaction, warning, error, ...): extensions emit them with ``api.emit`` and sinks write them.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from aw_action.ai.types import (
    AssistantMessage,
    Model,
    StreamDelta,
    StreamOptions,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from aw_action.lazy_dataclass import dataclass

AnyMessage = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True)
class AgentStart:
    type: Literal["agent_start"] = "agent_start"


@dataclass(frozen=True)
class AgentEnd:
    """Last event of a run. ``messages`` are the run's new messages; ``error`` is the final
    assistant error text when the run ended on an error or abort."""

    messages: list[AnyMessage]
    error: str | None = None
    type: Literal["agent_end"] = "agent_end"


@dataclass(frozen=True)
class TurnStart:
    turn_index: int
    type: Literal["turn_start"] = "turn_start"


@dataclass(frozen=True)
class TurnEnd:
    """The end of a turn; every ``turn_start`` has one.

    ``stop_reason`` None: a completed turn boundary, the assistant message and all its tool
    results are persisted. Otherwise the turn was cut short and this says why: the abort
    signal's reason (``aborted``, ``cancelled``, ``timeout``, a budget's stop reason) or
    ``error`` (there was nothing to send). ``message`` is then what the turn's request came to
    (an aborted assistant message, persisted only if the abort came after it was complete) and
    ``tool_results`` the results delivered before the abort; the run ends right after."""

    turn_index: int
    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    stop_reason: str | None = None
    type: Literal["turn_end"] = "turn_end"

    @property
    def completed(self) -> bool:
        return self.stop_reason is None


@dataclass(frozen=True)
class MessageStart:
    message: AnyMessage
    type: Literal["message_start"] = "message_start"


@dataclass(frozen=True)
class MessageUpdate:
    """One streamed delta. ``message`` (the partial message so far) is built when first read."""

    stream_event: StreamDelta
    type: Literal["message_update"] = "message_update"

    @property
    def message(self) -> AssistantMessage:
        return self.stream_event.partial


@dataclass(frozen=True)
class MessageEnd:
    message: AnyMessage
    type: Literal["message_end"] = "message_end"


@dataclass(frozen=True)
class ToolExecutionStart:
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    type: Literal["tool_execution_start"] = "tool_execution_start"


@dataclass(frozen=True)
class ToolExecutionUpdate:
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_text: str
    type: Literal["tool_execution_update"] = "tool_execution_update"


@dataclass(frozen=True)
class ToolExecutionEnd:
    tool_call_id: str
    tool_name: str
    result: ToolResultMessage
    is_error: bool
    duration_ms: int
    type: Literal["tool_execution_end"] = "tool_execution_end"


@dataclass(frozen=True)
class RequestEnd:
    """One model request finished (any outcome); the record every usage sink reads.

    ``steering`` names the notice this request carried (``{"type", "threshold"}``), if any.
    """

    message: AssistantMessage
    duration_ms: int
    streaming: bool
    purpose: str
    attempts: int
    steering: dict[str, Any] | None = None
    type: Literal["request_end"] = "request_end"


@dataclass(frozen=True)
class HarnessEvent:
    """A harness record: ``name`` is the JSONL ``event`` value, ``fields`` the rest."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    type: Literal["harness"] = "harness"


AgentEvent = (
    AgentStart
    | AgentEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | RequestEnd
    | HarnessEvent
)


# ---- hook payloads and results -------------------------------------------------------------


@dataclass
class ContextEvent:
    """Before every model call: ``messages`` is a copy; return ``ContextResult`` to replace it."""

    messages: list[AnyMessage]
    type: Literal["context"] = "context"


@dataclass
class ContextResult:
    messages: list[AnyMessage]


@dataclass
class ToolCallEvent:
    """Before a tool runs (after argument validation). ``input`` may be mutated in place."""

    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    type: Literal["tool_call"] = "tool_call"


@dataclass
class ToolCallResult:
    block: bool = False
    reason: str | None = None


@dataclass
class ToolResultEvent:
    """After a tool ran; return ``ToolResultPatch`` to replace fields of the result."""

    tool_call_id: str
    tool_name: str
    input: dict[str, Any]
    result: ToolResultMessage
    type: Literal["tool_result"] = "tool_result"


@dataclass
class ToolResultPatch:
    text: str | None = None
    details: dict[str, Any] | None = None
    is_error: bool | None = None


@dataclass
class BeforeProviderRequestEvent:
    """Before a model request: ``options`` is this request's copy; mutate it or return a new one.

    Returning ``ProviderRequestResult(options=...)`` replaces the options for this request only.
    Handlers may also call ``ctx.abort(...)``: the request is then not sent. ``system_prompt``,
    ``messages`` and ``tools`` are what the request will send (read only: the cost tracker sizes
    the request's worst case from them).
    """

    model: Model
    options: StreamOptions
    purpose: str
    type: Literal["before_provider_request"] = "before_provider_request"
    system_prompt: str = ""
    messages: list[AnyMessage] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)


@dataclass
class ProviderRequestResult:
    options: StreamOptions | None = None
    steering: dict[str, Any] | None = None
    """A notice this request carries, recorded on its usage record (``{"type", "threshold"}``)."""


@dataclass
class BeforeProviderPayloadEvent:
    """The exact provider body about to be sent; return a dict to replace it."""

    payload: dict[str, Any]
    model: Model
    type: Literal["before_provider_payload"] = "before_provider_payload"


@dataclass
class AfterProviderResponseEvent:
    status: int
    headers: dict[str, str]
    type: Literal["after_provider_response"] = "after_provider_response"


HookEvent = (
    ContextEvent
    | ToolCallEvent
    | ToolResultEvent
    | BeforeProviderRequestEvent
    | BeforeProviderPayloadEvent
    | AfterProviderResponseEvent
)
