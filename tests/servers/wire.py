"""A scriptable local HTTP server for provider wire-format tests (stdlib, loopback, port 0).

``WireServer`` answers each request with the next scripted ``Reply`` (or, when the script is
empty, with ``default``, a reply or a function of the request), and records every request it
received in ``requests`` (method, path, headers, body), in arrival order. A reply can stream its
body chunk by chunk (HTTP/1.1 chunked encoding), drop the socket after some chunks (an incomplete
body, which the client sees as a protocol error), wait before answering, or stall mid-body.

Replies go out with ``TCP_NODELAY``: a reply is several small flushed writes on a kept-alive
connection, and without it Nagle's algorithm holds each write after the first until the client
acknowledges the previous one, which a client that delays its ACKs does only after ~40 ms. Real
API servers do not stall like that; a test server that did would time its own stall, not the
client (bench/RESULTS.md was once wrong by that much). With ``time_replies``, each reply's
timing is recorded in ``replies`` (``ReplyTiming``), which is how the bench checks that no reply
was held back.

Provider-specific reply builders live next to this module (``anthropic.py``, ``openai.py``).

    with WireServer() as server:
        server.script(Reply.error(529, {...}), anthropic.stream_reply(text="hi"))
        ... point the SDK at server.url ...
        assert len(server.requests) == 2
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import socket
import ssl
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers.http_server import LocalHTTPServer


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Lower-cased names."""
    body: bytes
    connection: int = 0
    """Which connection it came on (the handler's id, as ``ReplyTiming.connection``)."""

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    """The body, sent one chunk per write (flushed), so SSE events arrive as a stream."""
    chunked: bool = True
    """Chunked transfer encoding; False sends ``Content-Length`` and the body at once."""
    drop_after: int | None = None
    """Close the socket after this many chunks, without ending the body."""
    delay_s: float = 0.0
    """Wait this long before the status line."""
    stall_after: int | None = None
    """Go silent for ``stall_s`` after this many chunks (a server that stalls mid-body)."""
    stall_s: float = 0.0

    @classmethod
    def json_body(cls, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
        body = json.dumps(data).encode()
        return cls(status, {"content-type": "application/json", **(headers or {})}, [body], chunked=False)

    @classmethod
    def sse(cls, events: list[str], headers: dict[str, str] | None = None, drop_after: int | None = None) -> Reply:
        """``events`` are complete SSE records (``event: x\\ndata: {...}``); one chunk each."""
        chunks = [(e.rstrip("\n") + "\n\n").encode() for e in events]
        return cls(200, {"content-type": "text/event-stream", **(headers or {})}, chunks, drop_after=drop_after)


Responder = Reply | Callable[[ReceivedRequest], Reply]

SIOCOUTQNSD = 0x894B
"""Linux ioctl: bytes in a socket's send queue not yet sent (held back, e.g. by Nagle)."""
HOLD_LIMIT_S = 1.0
"""How long a reply's last bytes are waited for to leave the send queue before giving up."""


@dataclass(frozen=True)
class ReplyTiming:
    """One reply as the server sent it, ``time.monotonic()`` seconds."""

    connection: int
    """Which connection (the handler's id): consecutive requests of a client share one."""
    received_at: float
    """The request's body was read."""
    written_at: float
    """The reply's last write returned (its bytes are in the kernel's send queue)."""
    on_wire_at: float
    """The kernel had sent every byte of it (nothing left unsent in the send queue)."""

    @property
    def held_s(self) -> float:
        """How long the kernel held the reply's last bytes back after the server wrote them."""
        return self.on_wire_at - self.written_at


def unsent_bytes(sock: socket.socket) -> int:
    """Bytes written to ``sock`` that the kernel has not sent yet."""
    return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), SIOCOUTQNSD, b"\0" * 4))[0])


def wait_until_sent(sock: socket.socket, limit_s: float = HOLD_LIMIT_S) -> float:
    """``time.monotonic()`` once ``sock``'s send queue holds no unsent byte (or ``limit_s`` later)."""
    deadline = time.monotonic() + limit_s
    while True:
        now = time.monotonic()
        try:
            if unsent_bytes(sock) == 0 or now >= deadline:
                return now
        except OSError:  # the client went away: nothing is held any more
            return now
        time.sleep(0.0002)


class _HTTPServer(LocalHTTPServer):
    tls: ssl.SSLContext | None = None

    def get_request(self) -> tuple[Any, Any]:
        """With TLS, each connection is wrapped; its handshake runs in its handler's thread."""
        conn, addr = super().get_request()
        if self.tls is None:
            return conn, addr
        conn.setblocking(True)
        return self.tls.wrap_socket(conn, server_side=True, do_handshake_on_connect=False), addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client went away (an aborted request): expected in these tests
        super().handle_error(request, client_address)


class WireServer:
    """Threaded HTTP server on 127.0.0.1; thread-safe script and request log."""

    def __init__(
        self,
        default: Responder | None = None,
        port: int = 0,
        tls: ssl.SSLContext | None = None,
        *,
        time_replies: bool = False,
    ) -> None:
        self.default = default
        self.tls = tls
        """Serve HTTPS with this context (``tests/servers/tls.py``); None: plain HTTP."""
        self.requests: list[ReceivedRequest] = []
        self.time_replies = time_replies
        self.replies: list[ReplyTiming] = []
        """With ``time_replies``: every complete reply, in the order they were sent."""
        self._script: deque[Responder] = deque()
        self._lock = threading.Lock()
        self._port = port
        self._httpd: LocalHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self._httpd is None:
            assert self._port, "server not started and no fixed port"
            return self._port
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def script(self, *replies: Responder) -> WireServer:
        with self._lock:
            self._script.extend(replies)
        return self

    def take_replies(self) -> list[ReplyTiming]:
        """The replies timed so far (``time_replies``), and forget them."""
        with self._lock:
            taken, self.replies = self.replies, []
        return taken

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    def _next(self, request: ReceivedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            responder = self._script.popleft() if self._script else self.default
        if responder is None:
            return Reply.json_body({"error": {"type": "test_error", "message": "no scripted reply"}}, status=500)
        return responder(request) if callable(responder) else responder

    def start(self) -> WireServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                received = time.monotonic()
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = server._next(ReceivedRequest(self.command, self.path, headers, body, id(self)))
                if self._send(reply) and server.time_replies:
                    written = time.monotonic()
                    timing = ReplyTiming(id(self), received, written, wait_until_sent(self.connection))
                    with server._lock:
                        server.replies.append(timing)

            do_GET = do_POST

            def _send(self, reply: Reply) -> bool:
                """Send ``reply``; False when it was cut short on purpose (``drop_after``)."""
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.chunked:
                    self.send_header("transfer-encoding", "chunked")
                else:
                    self.send_header("content-length", str(sum(len(c) for c in reply.chunks)))
                self.end_headers()
                for i, chunk in enumerate(reply.chunks):
                    if i == reply.stall_after:
                        time.sleep(reply.stall_s)
                    if reply.drop_after is not None and i >= reply.drop_after:
                        self._drop()
                        return False
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n" if reply.chunked else chunk)
                    self.wfile.flush()
                if reply.drop_after is not None:
                    self._drop()
                    return False
                if reply.chunked:
                    self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                return True

            def _drop(self) -> None:
                self.wfile.flush()
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)

        httpd = _HTTPServer(("127.0.0.1", self._port), Handler)
        httpd.tls = self.tls
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), name="wire-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def free_port() -> int:
    """A port nothing listens on right now (for connection-refused tests)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
