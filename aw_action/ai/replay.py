"""The replay provider (``replay/...``): answers each request with the reply a recorded run got.

``aw-harness replay`` (docs/replay.md) plays a recording's replies back, first in, first out,
while the tools run for real. No request leaves the process and no key is needed. Each reply is
played as the provider first produced it (every block, tool-call ids, usage, cost); only its
timestamp is the replay's, and ``adapt`` may rewrite it first (the recorded workspace's path in
tool-call arguments becomes the replay's).

A request the recording cannot answer ends in a fatal error and ``problem`` says why: the
replies ran out, or the request is of another kind (``purpose``) than the reply recorded in its
place. With ``then`` (``--continue``), once the replies run out every further request goes to
that live provider, as its model: the run goes on live from where the recording left it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Sequence

from aw_action.ai.types import (
    AbortSignal,
    AssistantMessage,
    AssistantStreamEvent,
    Model,
    Provider,
    ProviderHooks,
    ProviderRequest,
    StreamDone,
    StreamError,
    StreamStart,
    now_ms,
)
from aw_action.lazy_dataclass import dataclass

API = "replay"


@dataclass(frozen=True)
class RecordedReply:
    purpose: str
    turn: int
    message: AssistantMessage


@dataclass(frozen=True)
class Live:
    """Where requests go once the replies run out (``--continue --model``)."""

    provider: Provider
    model: Model


class ReplayProvider:
    """Plays ``replies`` in order; ``played`` counts the replies given, ``problem`` is set when
    a request could not be answered from the recording."""

    name = "replay"

    def __init__(
        self,
        replies: Sequence[RecordedReply],
        *,
        then: Live | None = None,
        adapt: Callable[[AssistantMessage], AssistantMessage] | None = None,
    ) -> None:
        self._replies = list(replies)
        self.then = then
        """Where requests go once the replies run out (``--continue``); set before the run starts."""
        self.adapt = adapt
        self.played = 0
        self.live_requests = 0
        self.problem: str | None = None

    @property
    def remaining(self) -> int:
        return len(self._replies) - self.played

    @property
    def next_turn(self) -> int | None:
        """The recorded turn of the next reply, or None when none is left."""
        return self._replies[self.played].turn if self.remaining else None

    async def stream(
        self, request: ProviderRequest, hooks: ProviderHooks, abort: AbortSignal
    ) -> AsyncIterator[AssistantStreamEvent]:
        if not self.remaining and self.then is not None:
            self.live_requests += 1
            live = dataclasses.replace(request, model=self.then.model)
            async for event in self.then.provider.stream(live, hooks, abort):
                yield event
            return
        base = AssistantMessage(provider=request.model.provider, model=request.model.id, api=API)
        number = self.played + 1
        if not self.remaining:
            yield self._refuse(base, f"the recording has no reply for request {number}: it holds {self.played}")
            return
        reply = self._replies[self.played]
        if reply.purpose != request.purpose:
            yield self._refuse(
                base, f"request {number} is a {request.purpose} request; the recording answered a {reply.purpose} one"
            )
            return
        if abort.aborted:
            yield StreamError(_failed(base, "Request was aborted", "aborted"))
            return
        self.played += 1
        await hooks.on_payload({"model": request.model.id, "replay": number})
        await hooks.on_response(200, {"content-type": "application/json"})
        message = reply.message.model_copy(deep=True)
        message.timestamp = now_ms()
        if self.adapt is not None:
            message = self.adapt(message)
        yield StreamStart(partial=base)
        yield StreamError(message) if message.stop_reason in ("error", "aborted") else StreamDone(message)

    def _refuse(self, base: AssistantMessage, problem: str) -> StreamError:
        self.problem = self.problem or problem
        return StreamError(_failed(base, f"replay: {problem}", "fatal"))


def _failed(base: AssistantMessage, text: str, kind: str) -> AssistantMessage:
    message = base.model_copy(deep=True)
    message.stop_reason = "aborted" if kind == "aborted" else "error"
    message.error_message = text
    message.error_kind = "aborted" if kind == "aborted" else "fatal"
    return message
