"""Whether a URL that refused streamable HTTP is a legacy HTTP+SSE endpoint (docs/mcp.md).

The MCP specification's backwards-compatibility rule for clients: POST ``initialize`` to the
URL; when that fails with a 4xx (405 or 404, say), GET the URL asking for ``text/event-stream``;
a legacy HTTP+SSE server (the transport of protocol 2024-11-05) answers with an event stream
whose first event is ``endpoint``. We do not speak that transport; this probe only lets the
refusal name it instead of the POST's generic error. The probe is bounded (``PROBE_TIMEOUT_S``
in all, ``PROBE_BYTES`` read) and sends the server's own headers, nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib

PROBE_TIMEOUT_S = 5.0
PROBE_BYTES = 4096

REFUSAL = (
    "its URL is a legacy HTTP+SSE endpoint (the MCP transport before 2025-03-26), which is not supported: "
    "use the server's streamable HTTP endpoint (often /mcp, or run it with --transport streamable-http), "
    "or start it over stdio with command"
)
"""Why the server is refused; the caller names the server."""


async def is_legacy_sse(url: str, headers: dict[str, str], timeout: float = PROBE_TIMEOUT_S) -> bool:
    """``True`` when a GET of ``url`` opens an event stream whose first event is ``endpoint``;
    ``False`` for anything else (an error, a timeout, another answer): never raises."""
    with contextlib.suppress(Exception):
        return await asyncio.wait_for(_probe(url, headers), timeout)
    return False


async def _probe(url: str, headers: dict[str, str]) -> bool:
    from mcp.shared._httpx_utils import create_mcp_http_client

    asked = {**headers, "Accept": "text/event-stream"}
    async with (
        create_mcp_http_client(headers=asked) as client,
        client.stream("GET", url) as response,
    ):
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or not kind.startswith("text/event-stream"):
            return False
        seen = b""
        async for chunk in response.aiter_bytes():
            seen += chunk
            lines = [line.strip() for line in seen.replace(b"\r", b"").split(b"\n")]
            events = [line.removeprefix(b"event:").strip() for line in lines if line.startswith(b"event:")]
            if events:
                return events[0] == b"endpoint"
            if len(seen) >= PROBE_BYTES:
                return False
        return False
