"""A local artifact v4 server (127.0.0.1): the Twirp ArtifactService calls and an Azure-like blob
endpoint, answering in GitHub's snake_case or act's camelCase, with injectable failures."""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

SERVICE = "/twirp/github.actions.results.api.v1.ArtifactService/"
SIGNATURE = "s+cr3t/sig="


def runtime_token(run: str = "run-backend-1", job: str = "job-backend-2") -> str:
    """An unsigned JWT shaped like the runner's: the ids live in the ``scp`` claim."""

    def part(obj: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    claims = {"scp": f"Actions.ExampleScope Actions.Results:{run}:{job}", "exp": 4102444800}
    return f"{part({'alg': 'RS256', 'typ': 'JWT'})}.{part(claims)}.c2lnbmF0dXJl"


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


@dataclass
class ArtifactServer:
    token: str
    casing: str = "snake"
    fail: dict[str, list[int]] = field(default_factory=dict)
    """Statuses to answer, in order, per call (``CreateArtifact``, ``FinalizeArtifact``, ``block``,
    ``blocklist``) before answering normally."""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    blocks: dict[str, bytes] = field(default_factory=dict)
    block_list: list[str] = field(default_factory=list)
    auth_failures: int = 0
    _server: ThreadingHTTPServer | None = None

    def __enter__(self) -> ArtifactServer:
        server_ref = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: dict[str, Any] | None = None) -> None:
                data = json.dumps(body or {}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def do_POST(self) -> None:
                method = self.path.removeprefix(SERVICE)
                body = json.loads(self._body() or b"{}")
                server_ref.calls.append((method, body))
                if self.headers.get("Authorization") != f"Bearer {server_ref.token}":
                    server_ref.auth_failures += 1
                    return self._reply(401, {"code": "unauthenticated", "msg": "bad token"})
                if status := server_ref._injected(method):
                    return self._reply(status, {"code": "internal", "msg": f"injected {status}"})
                if method == "CreateArtifact":
                    url = f"{server_ref.url}/blob/{body['name']}.zip?sv=2023-11-03&se=2099-01-01&sig=s%2Bcr3t%2Fsig%3D"
                    return self._reply(200, server_ref._case({"ok": True, "signed_upload_url": url}))
                if method == "FinalizeArtifact":
                    return self._reply(200, server_ref._case({"ok": True, "artifact_id": "4242"}))
                return self._reply(404, {"code": "bad_route", "msg": method})

            def do_PUT(self) -> None:
                query = parse_qs(urlsplit(self.path).query)
                comp = query.get("comp", [""])[0]
                data = self._body()
                server_ref.calls.append((f"PUT {comp}", {"sig": query.get("sig", [""])[0]}))
                if query.get("sig", [""])[0] != SIGNATURE:
                    return self._reply(403, {})
                if status := server_ref._injected(comp):
                    return self._reply(status, {})
                if comp == "block":
                    server_ref.blocks[query["blockid"][0]] = data
                elif comp == "blocklist":
                    text = data.decode()
                    server_ref.block_list = [p.split("</Latest>")[0] for p in text.split("<Latest>")[1:]]
                return self._reply(201, {})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def _injected(self, call: str) -> int:
        queue = self.fail.get(call)
        return queue.pop(0) if queue else 0

    def _case(self, body: dict[str, Any]) -> dict[str, Any]:
        return body if self.casing == "snake" else {_camel(k): v for k, v in body.items()}

    def uploaded(self) -> bytes:
        """The committed blob: blocks in block-list order."""
        return b"".join(self.blocks[b] for b in self.block_list)

    def named(self, method: str) -> list[dict[str, Any]]:
        return [body for name, body in self.calls if name == method]
