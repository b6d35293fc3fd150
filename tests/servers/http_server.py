"""The base of every local test server: threaded, daemon handler threads, and a listener that
never blocks ``shutdown()``.

Why: ``serve_forever`` polls the listening socket, then calls ``accept``; when a client connects
and resets in between, a blocking ``accept`` waits for the next client, which never comes, and
``shutdown()`` then waits forever. A non-blocking listener makes that ``accept`` fail (and the
loop retry) instead.
"""

from __future__ import annotations

from http.server import ThreadingHTTPServer


class LocalHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def server_activate(self) -> None:
        super().server_activate()
        self.socket.setblocking(False)
