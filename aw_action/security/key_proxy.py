"""An option for runs outside a container: the model key held by a separate loopback proxy.

The approach codex-action takes: the harness never keeps the real key. ``start_key_proxy``
starts ``python -m aw_action.security.key_proxy`` and hands it the key on stdin (never on the
command line, which is world-readable, nor in its environment); the proxy makes itself
non-dumpable, listens on 127.0.0.1 (a free port) and prints the port. The harness's SDK then
uses ``handle.base_url`` and ``handle.client_token`` as its key. For each request the proxy
checks that the credential the SDK sent (``x-api-key``, or ``authorization: Bearer``; SDK
versions differ) is the client token, puts the real key in that same header and forwards the
request to the upstream, streaming the answer back chunk by chunk (SSE works). A request with
any other credential gets 403 and never reaches the upstream, so an agent that finds the port
cannot spend the key.

What it buys: the key is in no process the agent can read when the proxy runs as another user,
and in no /proc entry the agent's uid can open otherwise (non-dumpable); the harness's own
memory holds only the client token. The caller must still remove the key from its own
environment (``os.environ`` and ``process_guard.wipe_initial_environ``).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import secrets
import subprocess
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host"}
UPSTREAM_TIMEOUT_S = 600.0
START_TIMEOUT_S = 30.0


@dataclass
class ProxyHandle:
    base_url: str
    client_token: str
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_key_proxy(upstream: str, key: str, *, python: str | None = None) -> ProxyHandle:
    """Start the proxy for ``upstream`` (a base URL such as ``https://api.anthropic.com``)."""
    token = "aw-proxy-" + secrets.token_urlsafe(24)
    proc = subprocess.Popen(
        [python or sys.executable, "-I", "-m", "aw_action.security.key_proxy"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin"},
        cwd="/",
    )
    assert proc.stdin is not None and proc.stdout is not None
    config = {"upstream": upstream, "key": key, "client_token": token}
    proc.stdin.write(json.dumps(config).encode() + b"\n")
    proc.stdin.flush()
    line = proc.stdout.readline().decode().strip()
    if not line.isdigit():
        proc.kill()
        raise RuntimeError(f"the key proxy did not start (said {line[:200]!r})")
    return ProxyHandle(f"http://127.0.0.1:{line}", token, proc)


def _credential(headers: Any) -> tuple[str, str]:
    """(the header the client used, the credential in it)."""
    bearer = str(headers.get("authorization") or "")
    if bearer.startswith("Bearer "):
        return "authorization", bearer.removeprefix("Bearer ").strip()
    return "x-api-key", str(headers.get("x-api-key") or "").strip()


def _handler(config: dict[str, str]) -> type[BaseHTTPRequestHandler]:
    upstream = urlsplit(config["upstream"])
    prefix = upstream.path.rstrip("/")
    key, token = config["key"], config["client_token"]
    connection_class = http.client.HTTPSConnection if upstream.scheme == "https" else http.client.HTTPConnection

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def _forward(self) -> None:
            header, credential = _credential(self.headers)
            if not secrets.compare_digest(credential.encode(), token.encode()):
                refusal = b'{"error":"forbidden: not the harness"}'
                self.send_response(403)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(refusal)))
                self.end_headers()
                self.wfile.write(refusal)
                self.close_connection = True  # the unread request body must not become the next request
                return
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            dropped = HOP_BY_HOP | {"authorization", "x-api-key"}
            headers = {k: v for k, v in self.headers.items() if k.lower() not in dropped}
            headers[header] = f"Bearer {key}" if header == "authorization" else key
            conn = connection_class(upstream.netloc, timeout=UPSTREAM_TIMEOUT_S)
            try:
                conn.request(self.command, prefix + self.path, body=body, headers=headers)
                answer = conn.getresponse()
                self.send_response(answer.status, answer.reason)
                for name, value in answer.getheaders():
                    if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                        self.send_header(name, value)
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                while chunk := answer.read1(65536):
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                self.close_connection = True
            finally:
                conn.close()

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

    return Handler


def serve(config_line: bytes, out: IO[str]) -> None:
    """The proxy process: configure from one JSON line, print the port, serve until stdin ends."""
    from aw_action.security.process_guard import make_non_dumpable

    make_non_dumpable()
    config = json.loads(config_line)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(config))
    server.daemon_threads = True
    out.write(f"{server.server_address[1]}\n")
    out.flush()
    threading.Thread(target=server.serve_forever, args=(0.2,), daemon=True).start()
    with contextlib.suppress(OSError, ValueError):
        sys.stdin.buffer.read()  # the harness holds stdin open; EOF (harness gone) ends the proxy
    server.shutdown()


if __name__ == "__main__":
    serve(sys.stdin.buffer.readline(), sys.stdout)
