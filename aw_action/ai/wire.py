"""``Wire``: one API's wire format as an SDK speaks it (``registry.APIS`` names each API's).

A wire builds a request's JSON body and reads the SDK's stream events (or a whole response) into a
``StreamState``; the generic provider (``ai/sdk_provider.py``) sends the body and retries.
"""

from __future__ import annotations

from typing import Any, Protocol

from aw_action.ai.stream_state import StreamState
from aw_action.ai.types import ProviderRequest, StreamDelta


class Wire(Protocol):
    """One API's wire format, as spoken through one SDK."""

    api: str
    path: str
    terminal: str
    """Name of the event that completes a response (used in the incomplete-stream error)."""

    def body(self, request: ProviderRequest, stream: bool) -> dict[str, Any]: ...

    def types(self, sdk: Any) -> tuple[Any, Any]:
        """``(cast_to, stream_cls)`` for ``client.post``."""
        ...

    def feed(self, event: Any, state: StreamState) -> list[StreamDelta]:
        """Apply one stream event; raise ``ProviderError`` for an error event in the stream."""
        ...

    def whole(self, response: Any, state: StreamState) -> None:
        """Apply a non-streamed response."""
        ...

    def end_of_stream(self, state: StreamState, payload: dict[str, Any]) -> None:
        """The body ended before ``complete``: complete ``state`` if the API allows it, else leave
        it incomplete (the attempt is then discarded and retried)."""
        ...
