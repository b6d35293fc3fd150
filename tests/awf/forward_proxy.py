"""A plain HTTP forward proxy on loopback (AWF's Squid, for ``http://`` targets): it records every
request and either forwards it (absolute-form URI, as clients send to a proxy) or refuses it with
403, the way Squid refuses a domain outside the allowlist."""

from __future__ import annotations

import contextlib
import http.client
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.servers.http_server import LocalHTTPServer

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


@dataclass
class ForwardProxy:
    deny: bool = False
    seen: list[tuple[str, str]] = field(default_factory=list)
    """``(method, absolute URI)`` of every request, in arrival order."""
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> ForwardProxy:
        self._server = LocalHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def _handler(proxy: ForwardProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_CONNECT(self) -> None:
            proxy.seen.append(("CONNECT", self.path))
            self.send_response(403)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            proxy.seen.append((self.command, self.path))
            target = urlsplit(self.path)
            if proxy.deny or not target.hostname:
                data = b"Access denied by the test proxy"
                self.send_response(403)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            conn = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=120)
            path = target.path + (f"?{target.query}" if target.query else "")
            try:
                conn.request(self.command, path or "/", body=body or None, headers=headers)
                response = conn.getresponse()
                self.send_response(response.status)
                for name, value in response.getheaders():
                    if name.lower() not in HOP_BY_HOP | {"content-length"}:
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

        do_POST = do_GET

    return Handler
