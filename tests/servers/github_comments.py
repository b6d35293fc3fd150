"""A local fake of GitHub's issue comments API, as PyGithub uses it for the progress comment.

``POST /repos/{owner}/{repo}/issues/{n}/comments`` creates a comment, ``PATCH
/repos/{owner}/{repo}/issues/comments/{id}`` edits it (GitHub's status codes and shapes, the
``url`` pointing back here so PyGithub's ``edit`` finds it). Every request is recorded with the
time it arrived. Tests can make the next requests fail (status, headers) or hold them until
released (a hung API).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers.http_server import LocalHTTPServer

TOKEN = "ghs_progresscommenttoken0123456789"


@dataclass
class Call:
    method: str
    path: str
    body: Any
    authorization: str
    at: float


@dataclass
class Planned:
    status: int
    headers: dict[str, str]
    message: str


@dataclass
class CommentsAPI:
    repository: str = "octo/hello"
    calls: list[Call] = field(default_factory=list)
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    failures: list[Planned] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    holding: bool = False

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.release.set()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                call = Call(self.command, self.path, json.loads(raw) if raw else None,
                            self.headers.get("Authorization", ""), time.monotonic())  # fmt: skip
                status, data, headers = api.answer(call)
                body = json.dumps(data).encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = _handle

        self.server = LocalHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def fail(self, status: int, times: int = 1, message: str = "failed", **headers: str) -> None:
        self.failures += [Planned(status, headers, message)] * times

    def hold(self) -> None:
        """Hold every request until ``release`` is set."""
        self.release.clear()

    def writes(self) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method in ("POST", "PATCH")]

    def answer(self, call: Call) -> tuple[int, Any, dict[str, str]]:
        with self.lock:
            self.calls.append(call)
        self.release.wait(timeout=60)
        if call.authorization not in (f"token {TOKEN}", f"Bearer {TOKEN}"):
            return 401, {"message": "Bad credentials"}, {}
        with self.lock:
            if self.failures:
                planned = self.failures.pop(0)
                return planned.status, {"message": planned.message}, planned.headers
            return self._route(call)

    def _route(self, call: Call) -> tuple[int, Any, dict[str, str]]:
        prefix = f"/repos/{self.repository}/issues"
        if (m := re.fullmatch(prefix + r"/(\d+)/comments", call.path)) and call.method == "POST":
            comment_id = 100 + len(self.comments)
            self.comments[comment_id] = {"id": comment_id, "issue": int(m[1]), "body": call.body["body"]}
            return 201, self._json(comment_id), {}
        if (m := re.fullmatch(prefix + r"/comments/(\d+)", call.path)) and int(m[1]) in self.comments:
            if call.method == "PATCH":
                self.comments[int(m[1])]["body"] = call.body["body"]
            return 200, self._json(int(m[1])), {}
        return 404, {"message": "Not Found"}, {}

    def _json(self, comment_id: int) -> dict[str, Any]:
        comment = self.comments[comment_id]
        url = f"{self.url}/repos/{self.repository}/issues/comments/{comment_id}"
        return {"id": comment_id, "body": comment["body"], "url": url, "html_url": url, "user": {"login": "bot"}}
