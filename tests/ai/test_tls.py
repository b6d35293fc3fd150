"""The model client's TLS context, made on a thread while the SDK imports (``ai/tls.py``), is the
one httpx2 makes itself: it verifies the server against the system's CA bundle or the process's
``SSL_CERT_FILE``, over the real SDK clients to a local HTTPS server; an untrusted certificate is
refused; a context that cannot be made leaves the client to make (and fail with) its own."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import httpcore2
import pytest

from aw_action.ai.tls import TlsContext
from tests.ai.conftest import anthropic_provider, collect, openai_provider, request
from tests.servers import anthropic
from tests.servers import openai as openai_wire
from tests.servers.tls import LocalCA, make_ca
from tests.servers.wire import WireServer


@pytest.fixture
def ca(tmp_path: Path) -> LocalCA:
    return make_ca(tmp_path / "ca")


@pytest.fixture
def https(ca: LocalCA) -> Iterator[WireServer]:
    with WireServer(tls=ca.server_context()) as server:
        yield server


def test_the_context_verifies_like_httpx2s_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    made = TlsContext.start().get()
    assert isinstance(made, ssl.SSLContext)
    assert made.verify_mode == ssl.CERT_REQUIRED and made.check_hostname
    own = httpcore2.default_ssl_context()  # what httpx2 makes itself for verify=True
    assert made.cert_store_stats() == own.cert_store_stats(), "not the system's CA bundle as httpx2 reads it"
    settings = ("options", "minimum_version", "verify_flags", "protocol")
    assert [getattr(made, name) for name in settings] == [getattr(own, name) for name in settings]


async def test_a_server_the_process_trusts_answers_over_https(
    https: WireServer, ca: LocalCA, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(ca.cert))
    https.script(anthropic.stream_reply(text="over tls"), openai_wire.chat_stream_reply(text="over tls too"))
    _, msg = await collect(anthropic_provider(https), request("anthropic/claude-sonnet-4-5"))
    assert msg.stop_reason == "stop" and msg.text == "over tls", msg.error_message
    _, msg = await collect(openai_provider(https), request("openai/gpt-4o-mini"))
    assert msg.stop_reason == "stop" and msg.text == "over tls too", msg.error_message
    assert len(https.requests) == 2


async def test_a_certificate_nobody_trusts_is_refused(https: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    https.script(anthropic.stream_reply(text="never"))
    _, msg = await collect(anthropic_provider(https), request("anthropic/claude-sonnet-4-5"))
    assert msg.stop_reason == "error" and "CERTIFICATE_VERIFY_FAILED" in (msg.error_message or ""), msg.error_message
    assert https.requests == [], "a request went to a server whose certificate was not verified"


def test_a_context_that_cannot_be_made_leaves_the_client_its_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    assert TlsContext.start().get() is True


def test_without_a_thread_to_be_had_the_client_makes_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_thread(_self: object) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr("threading.Thread.start", no_thread)
    assert TlsContext.start().get() is True
