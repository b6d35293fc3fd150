"""The model client's TLS context, made on a thread while the SDK imports.

An SDK's client, made with ``verify`` left alone, has httpx2 make its TLS context
(``httpcore2.default_ssl_context``: OpenSSL reads and parses the system's CA bundle, ~20 ms) after
the SDK's import, on the way to the first request. OpenSSL reads the bundle with the interpreter
released, so ``TlsContext.start`` calls that same function on a thread before the SDK's import
(hundreds of milliseconds of the interpreter's own work) and the client is handed its result as
``verify=``: the same context, verified the same way, read from the same process environment
(``SSL_CERT_FILE``, ``SSL_CERT_DIR``), made while the other core would idle.

When making it failed (an unreadable ``SSL_CERT_FILE``), ``get`` answers ``True``: the client makes
its own and fails as it always did, with the SDK's own error.
"""

from __future__ import annotations

import contextlib
import ssl
import threading


class TlsContext:
    """One TLS context, made on a daemon thread (it starts no process) from ``start``."""

    def __init__(self) -> None:
        self._made: list[ssl.SSLContext] = []
        self._thread: threading.Thread | None = None

    @classmethod
    def start(cls) -> TlsContext:
        made = cls()
        try:
            import httpcore2  # the SDKs' transport: imported on this thread, not on the other
        except ImportError:
            return made  # no SDK installed: the SDK's import says so (``ai/registry.import_sdk``)

        def make() -> None:
            # any failure: get() answers True, and the client makes its own and reports the error
            with contextlib.suppress(Exception):
                made._made.append(httpcore2.default_ssl_context())

        thread = threading.Thread(target=make, name="aw-tls-context", daemon=True)
        try:
            thread.start()
        except RuntimeError:  # no thread to be had (the process's task limit): the client makes its own
            return made
        made._thread = thread
        return made

    def get(self) -> ssl.SSLContext | bool:
        """The context (waits for the thread), or True (httpx2's default) when it could not be made."""
        if self._thread is not None:
            self._thread.join()
        return self._made[0] if self._made else True
