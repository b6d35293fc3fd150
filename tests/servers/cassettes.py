"""Recorded provider traffic (vcrpy-style YAML cassettes) as ``Reply`` objects for ``WireServer``.

Two flavours (see /work/shared/reference/cassettes/README.md): pydantic-ai's serializer keeps
the request in ``parsed_body`` and the response either in ``body.string`` (SSE text) or in
``parsed_body`` (JSON); stock vcrpy keeps ``body`` as a string and may store the response as
gzip bytes (``!!binary``) with ``Content-Encoding: gzip``, which is replayed as recorded.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.servers.wire import Reply

CASSETTE_DIR = Path("/work/shared/reference/cassettes")
KEPT_HEADERS = ("content-type", "content-encoding", "request-id", "x-request-id")


@dataclass(frozen=True)
class Interaction:
    cassette: str
    index: int
    uri: str
    request: dict[str, Any]
    status: int
    headers: dict[str, str]
    body: bytes
    """The response body exactly as it went over the wire (possibly gzip)."""

    @property
    def text(self) -> str:
        """The decoded response body."""
        raw = gzip.decompress(self.body) if self.headers.get("content-encoding") == "gzip" else self.body
        return raw.decode()

    @property
    def is_sse(self) -> bool:
        return self.headers.get("content-type", "").startswith("text/event-stream")

    @property
    def api(self) -> str | None:
        if "/v1/messages" in self.uri:
            return "anthropic-messages"
        if self.uri.endswith("/chat/completions"):
            return "openai-completions"
        if self.uri.endswith("/responses"):
            return "openai-responses"
        return None  # e.g. Gemini calls recorded in the same cassette

    def reply(self) -> Reply:
        if self.is_sse and self.headers.get("content-encoding") != "gzip":
            events = [e for e in self.text.split("\n\n") if e.strip()]
            return Reply.sse(events, headers={k: v for k, v in self.headers.items() if k != "content-type"})
        return Reply(self.status, dict(self.headers), [self.body], chunked=False)


def _first(value: Any) -> str:
    return str(value[0] if isinstance(value, list) else value)


def load(path: Path) -> list[Interaction]:
    data = YAML(typ="safe").load(path.read_text())
    out = []
    for i, item in enumerate(data["interactions"]):
        req, resp = item["request"], item["response"]
        request = req.get("parsed_body")
        if request is None:
            request = json.loads(req["body"])
        headers = {k.lower(): _first(v) for k, v in (resp.get("headers") or {}).items() if k.lower() in KEPT_HEADERS}
        body_field = resp.get("body")
        if body_field is not None:
            raw = body_field["string"]
            body = raw if isinstance(raw, bytes) else raw.encode()
        else:
            body = json.dumps(resp["parsed_body"]).encode()
            headers.setdefault("content-type", "application/json")
        out.append(Interaction(path.name, i, req["uri"], request, int(resp["status"]["code"]), headers, body))
    return out


def all_interactions() -> list[Interaction]:
    return [i for path in sorted(CASSETTE_DIR.glob("*.yaml")) for i in load(path)]
