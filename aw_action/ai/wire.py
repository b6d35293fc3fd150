"""``Wire``: one API's wire format as an SDK speaks it (``registry.APIS`` names each API's).

A wire builds a request's JSON body and reads the reply into a ``StreamState``; the generic
provider (``ai/sdk_provider.py``) sends the body through the SDK and retries. The reply reaches
the wire as plain JSON objects, never the SDK's typed models: a streamed reply's server-sent
events are framed by ``ai/sse.py`` and turned into this API's event objects by ``decode`` (or,
for a transport whose framing only its SDK reads, Bedrock's AWS event stream, decoded by the SDK
into the same objects), then applied by ``feed``; a whole reply is its JSON object (``whole``).
"""

from __future__ import annotations

from typing import Any, Protocol

from aw_action.ai.sse import Decoded, ServerEvent
from aw_action.ai.stream_state import StreamState
from aw_action.ai.types import ProviderRequest, StreamDelta


class Wire(Protocol):
    """One API's wire format, as spoken through one SDK."""

    api: str
    path: str
    terminal: str
    """Name of the event that completes a response (used in the incomplete-stream error)."""

    def body(self, request: ProviderRequest, stream: bool) -> dict[str, Any]: ...

    def decode(self, event: ServerEvent) -> Decoded:
        """One server-sent event as this API's event object, as the API's SDK reads it: ``None``
        for one that carries nothing to apply (a ping, a keep-alive), ``sse.END`` for the
        API's end-of-body marker; raises ``ProviderError`` for an error event."""
        ...

    def feed(self, event: dict[str, Any], state: StreamState) -> list[StreamDelta]:
        """Apply one stream event; raise ``ProviderError`` for an error event in the stream."""
        ...

    def whole(self, response: dict[str, Any], state: StreamState) -> None:
        """Apply a non-streamed response (its JSON object)."""
        ...

    def end_of_stream(self, state: StreamState, payload: dict[str, Any]) -> None:
        """The body ended before ``complete``: complete ``state`` if the API allows it, else leave
        it incomplete (the attempt is then discarded and retried)."""
        ...
