"""A loopback stand-in for AWF's api-proxy sidecar: placeholders in, real keys out.

Behaviour copied from gh-aw-firewall @f550957 (``containers/api-proxy``):

- one listener per provider (AWF ports: openai 10000, anthropic 10001, copilot 10002; here any
  free loopback port);
- a request must carry the provider's placeholder (``Authorization: Bearer`` or ``x-api-key``);
  anything else gets 401 here (AWF would forward and let upstream refuse it; refusing keeps a
  harness that sends a real key from passing);
- client ``host``, ``authorization``, ``proxy-authorization``, ``x-api-key``, ``x-goog-api-key``,
  ``forwarded``, ``via`` and ``x-forwarded-*`` are stripped (``proxy-utils.js``); the real key is
  added (anthropic ``x-api-key``, openai and copilot ``Authorization: Bearer``); Copilot gets
  ``x-initiator: agent``, ``x-interaction-id``, ``copilot-integration-id`` only where the client
  sent none (``request-headers.js``); OpenAI paths get ``/v1`` when missing;
- ``GET /reflect`` on every port (``management.js``): the configured endpoints, their models;
- ``budget_requests``: after that many forwarded requests every request is refused with AWF's
  403 ``ai_credits_limit_exceeded`` body (``guards/ai-credits-guard.js``);
- ``steer_after``: token steering (``AWF_ENABLE_TOKEN_STEERING``): the request forwarded after that
  many carries AWF's AI-credit notice, injected the way ``body-transform.js``
  ``injectSteeringMessage`` does (Anthropic ``system``: appended to a string with a blank line,
  a ``{type: text}`` block added to a list, created when missing; OpenAI chat: a system message
  after the last one); once, like each AWF threshold.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.servers.http_server import LocalHTTPServer
from tests.servers.wire import WireServer

PLACEHOLDERS = {
    "anthropic": "sk-ant-placeholder-key-for-credential-isolation",
    "openai": "sk-placeholder-for-api-proxy",
    "copilot": "ghu_" + "a" * 36,
}
STRIPPED = {"host", "authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "forwarded", "via"}
COPILOT_DEFAULTS = {"x-initiator": "agent", "x-interaction-id": "rig-1", "copilot-integration-id": "agentic-workflows"}
NOT_THE_PLACEHOLDER = {"error": {"type": "authentication_error", "message": "not the placeholder"}}
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "content-length"}
AWF_CREDIT_NOTICE = (
    "[AWF AI CREDIT WARNING] You have used 80% of your AI credit budget. Begin planning to wrap up your current work."
)


@dataclass
class Seen:
    provider: str
    method: str
    path: str
    headers: dict[str, str]


@dataclass
class ProviderRoute:
    name: str
    upstream: WireServer
    real_key: str
    models: list[str] | None = None
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@dataclass
class AwfProxy:
    routes: dict[str, ProviderRoute]
    budget_requests: int | None = None
    steer_after: int | None = None
    injected: list[str] = field(default_factory=list)
    """Paths of the requests that carried AWF's notice."""
    seen: list[Seen] = field(default_factory=list)
    refused: list[Seen] = field(default_factory=list)
    forwarded: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def reflect(self) -> dict[str, Any]:
        endpoints = [
            {
                "provider": route.name,
                "port": route.server.server_address[1] if route.server else None,
                "base_url": route.url,
                "configured": True,
                "models": route.models,
                "model_metadata": None,
                "models_url": f"{route.url}/models",
            }
            for route in self.routes.values()
        ]
        return {"endpoints": endpoints, "models_fetch_complete": True, "model_aliases": None, "ai_credits": None}

    def start(self) -> AwfProxy:
        for route in self.routes.values():
            route.server = LocalHTTPServer(("127.0.0.1", 0), _handler(self, route))
            route.server.daemon_threads = True
            threading.Thread(target=route.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        for route in self.routes.values():
            if route.server is not None:
                route.server.shutdown()
                route.server.server_close()

    def __enter__(self) -> AwfProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _upstream_headers(route: ProviderRoute, incoming: dict[str, str]) -> dict[str, str]:
    headers = {k: v for k, v in incoming.items() if k not in STRIPPED and not k.startswith("x-forwarded-")}
    headers = {k: v for k, v in headers.items() if k not in HOP_BY_HOP}
    if route.name == "anthropic":
        headers["x-api-key"] = route.real_key
    else:
        headers["authorization"] = f"Bearer {route.real_key}"
    if route.name == "copilot":
        for name, value in (
            ("x-initiator", "agent"),
            ("x-interaction-id", "rig-1"),
            ("copilot-integration-id", "agentic-workflows"),
        ):
            if not headers.get(name, "").strip():
                headers[name] = value
    return headers


def _handler(proxy: AwfProxy, route: ProviderRoute) -> type[BaseHTTPRequestHandler]:
    placeholder = PLACEHOLDERS[route.name]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def _json(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/reflect":
                with proxy._lock:
                    proxy.seen.append(
                        Seen(route.name, "GET", "/reflect", {k.lower(): v for k, v in self.headers.items()})
                    )
                self._json(200, proxy.reflect())
                return
            self.do_POST()

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            incoming = {k.lower(): v for k, v in self.headers.items()}
            seen = Seen(route.name, self.command, self.path, incoming)
            auth = incoming.get("authorization", "").removeprefix("Bearer ").strip()
            steer = False
            with proxy._lock:
                proxy.seen.append(seen)
                if placeholder not in (auth, incoming.get("x-api-key", "").strip()):
                    proxy.refused.append(seen)
                    refuse: tuple[int, Any] | None = (
                        401,
                        {"error": {"type": "authentication_error", "message": "not the placeholder"}},
                    )
                elif proxy.budget_requests is not None and proxy.forwarded >= proxy.budget_requests:
                    refuse = (403, _credits_refusal(proxy.budget_requests))
                else:
                    refuse = None
                    steer = proxy.steer_after is not None and proxy.forwarded == proxy.steer_after
                    proxy.forwarded += 1
            if refuse is not None:
                self._json(*refuse)
                return
            if steer:
                body = _inject_notice(body, self.path)
                proxy.injected.append(self.path)
            path = self.path
            if route.name == "openai" and not path.startswith("/v1/"):
                path = "/v1" + path
            self._forward(path, body, _upstream_headers(route, incoming))

        def _forward(self, path: str, body: bytes, headers: dict[str, str]) -> None:
            target = urlsplit(route.upstream.url)
            conn = http.client.HTTPConnection(target.hostname or "127.0.0.1", target.port, timeout=120)
            try:
                conn.request(self.command, path, body=body or None, headers=headers)
                response = conn.getresponse()
                self.send_response(response.status)
                for name, value in response.getheaders():
                    if name.lower() not in HOP_BY_HOP:
                        self.send_header(name, value)
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                while chunk := response.read1(65536):
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            except (OSError, http.client.HTTPException):
                with contextlib.suppress(OSError):
                    self.connection.close()
            finally:
                conn.close()

    return Handler


def _inject_notice(body: bytes, path: str) -> bytes:
    try:
        payload = json.loads(body)
    except ValueError:
        return body  # AWF leaves an unparseable body alone
    if path.split("?")[0].endswith("/messages"):  # Anthropic Messages (and Copilot's /v1/messages)
        system = payload.get("system")
        if isinstance(system, str):
            payload["system"] = f"{system}\n\n{AWF_CREDIT_NOTICE}"
        elif isinstance(system, list):
            payload["system"] = [*system, {"type": "text", "text": AWF_CREDIT_NOTICE}]
        else:
            payload["system"] = AWF_CREDIT_NOTICE
    elif path.split("?")[0].endswith("/responses"):
        payload["instructions"] = f"{payload.get('instructions') or ''}\n\n{AWF_CREDIT_NOTICE}".strip()
    else:  # Chat Completions
        messages = payload.setdefault("messages", [])
        last = max((i for i, m in enumerate(messages) if m.get("role") == "system"), default=-1)
        messages.insert(last + 1, {"role": "system", "content": AWF_CREDIT_NOTICE})
    return json.dumps(payload).encode()


def _credits_refusal(limit: int) -> dict[str, Any]:
    total = float(limit) + 0.25
    return {
        "error": {
            "type": "ai_credits_limit_exceeded",
            "message": f"Maximum AI credits exceeded ({total:.6f} / {limit}).",
            "total_ai_credits": total,
            "max_ai_credits": limit,
            "hard_cap": False,
        }
    }
