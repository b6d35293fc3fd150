"""A loopback server that accepts connections and never answers: a hung collector or artifact
service, for the tests that check every wait on the network is bounded."""

from __future__ import annotations

import contextlib
import socket
import threading


class SilentServer:
    def __enter__(self) -> str:
        """Starts listening; returns the server's ``http://127.0.0.1:<port>`` URL."""
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                self.held.append(self.sock.accept()[0])

    def __exit__(self, *exc: object) -> None:
        for conn in [*self.held, self.sock]:
            conn.close()
