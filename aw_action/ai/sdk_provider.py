"""A provider over its SDK: the generic part (one request, retried, streamed out), the same for
every SDK and API.

A provider is a catalog provider (``ProviderSpec``) with its credential: its transport
(``registry.TRANSPORTS``) builds the SDK client, and each request's model names the ``Wire`` of
its API (``registry.APIS``; the wire builds the JSON body and reads the reply's events into a
``StreamState``). For each HTTP attempt this module:

1. passes the body to ``hooks.on_payload`` (which never changes it in place: a retry sends the
   same body again; whoever changes it works on a copy, the extension runner makes one only
   when a payload hook is registered) and sends exactly the body it returns, through the SDK's
   own ``client.post`` (auth, base URL and status errors stay the SDK's; its retries are off:
   ``max_retries=0``). A transport whose client sends the body as it is
   (``TransportRow.raw_body``) gets it as JSON bytes, encoded here as the SDK encodes it, so the
   SDK does not walk and copy the whole history again on every request;
2. reports status and headers to ``hooks.on_response`` from an httpx response event hook, i.e.
   before the body is read, for every response including errors;
3. reads a streamed reply's body itself (``ai/sse.py`` frames the server-sent events, the wire
   decodes them into the API's JSON objects: no typed event model of the SDK's is built; Bedrock's
   AWS event stream goes through the SDK's decoder, asked for plain objects) and streams
   ``StreamStart``/``StreamDelta`` events live; an attempt that dies before the API's
   terminal event raises, is discarded and retried (a retried attempt starts with a fresh
   ``StreamStart``), so only a complete message is ever returned as ``StreamDone``. Reading
   stops at the terminal event: a socket that drops (or stalls) after it cannot turn a complete,
   billed message into a retry.

``stream`` never raises: failures end in one ``StreamError`` whose text passed the redactor.
The attempt runs in its own task so that an abort cancels the HTTP request at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import field
from typing import Any

import pydantic_core

from aw_action.ai.catalog import ProviderSpec
from aw_action.ai.credentials import Credential
from aw_action.ai.errors import Classified, IncompleteStreamError, ProviderError, classify
from aw_action.ai.pricing import cost_usd
from aw_action.ai.registry import TRANSPORTS, import_sdk, load, wire_for
from aw_action.ai.retry import RetryPolicy, run_with_retries
from aw_action.ai.sse import END, read_events
from aw_action.ai.stream_state import StreamState
from aw_action.ai.tls import TlsContext
from aw_action.ai.transports import Connection
from aw_action.ai.types import (
    AbortSignal,
    AssistantMessage,
    AssistantStreamEvent,
    Model,
    ProviderHooks,
    ProviderRequest,
    StreamDone,
    StreamError,
    StreamStart,
)
from aw_action.ai.warm_up import warm_up
from aw_action.ai.wire import Wire
from aw_action.lazy_dataclass import dataclass

DEFAULT_TIMEOUT_S = 300.0
"""Per-read timeout: a stream silent this long is treated as dead (Pi's idle timeout)."""

Scrub = Callable[[str], str]
Emit = Callable[[AssistantStreamEvent], None]


@dataclass
class _Attempt:
    hooks: ProviderHooks
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)


_CURRENT: ContextVar[_Attempt | None] = ContextVar("aw_provider_attempt", default=None)


async def _on_http_response(response: Any) -> None:
    """httpx response hook: runs in the attempt's task, before the body is read."""
    attempt = _CURRENT.get()
    if attempt is None:
        return
    attempt.status = int(response.status_code)
    attempt.headers = {str(k).lower(): str(v) for k, v in response.headers.items()}
    await attempt.hooks.on_response(attempt.status, dict(attempt.headers))


async def _decoded(wire: Wire, chunks: AsyncIterator[bytes]) -> AsyncIterator[dict[str, Any]]:
    """The body's server-sent events as ``wire``'s event objects, up to the API's end marker."""
    async for event in read_events(chunks):
        decoded = wire.decode(event)
        if decoded is END:
            return
        if decoded is not None:
            yield decoded


KEEP_ALIVE_DRAIN_S = 0.25
"""How long the rest of a complete reply's body may take to arrive before its connection is let go."""
KEEP_ALIVE_DRAIN_BYTES = 64 * 1024
"""How much of it may be read (a body that goes on after its message is complete is not kept)."""


async def keep_connection(chunks: AsyncIterator[bytes]) -> None:
    """Read what is left of a reply whose message is complete (the chunked body's last chunk, a
    trailing ``[DONE]``), so that closing the response hands its connection back to the pool
    and the next request reuses it. Left unread, the HTTP client closes the connection, and
    every turn paid a new connection (against the API, a new TLS handshake). Bounded by
    ``KEEP_ALIVE_DRAIN_S`` and ``KEEP_ALIVE_DRAIN_BYTES``: past either, or on any error
    reading, the connection is simply closed; the message is complete either way."""

    async def drain() -> None:
        left = KEEP_ALIVE_DRAIN_BYTES
        async for chunk in chunks:
            left -= len(chunk)
            if left < 0:
                return

    with contextlib.suppress(Exception):
        async with asyncio.timeout(KEEP_ALIVE_DRAIN_S):
            await drain()


def encode_body(payload: dict[str, Any]) -> bytes:
    """The JSON a request body is sent as: compact, UTF-8 unescaped, no ``NaN`` or ``Infinity``,
    as the SDKs encode it (their ``openapi_dumps`` is ``json.dumps``). Written by pydantic-core's
    encoder (a body carries the whole history: at 200 turns it took ``json.dumps`` 0.7 ms a
    request, a third of that here; bench/PROFILE.md). The bytes are the SDKs' but for the
    spelling of a float below about 1e-4 (``0.00001`` for ``1e-05``: the same number); values JSON
    has no type for that pydantic-core knows (a date, bytes) are written as it writes them.
    A body that may hold ``NaN`` or ``Infinity`` (the text appears anywhere) or that the fast
    encoder refuses is encoded by ``json.dumps`` as before, which raises ``ValueError`` or
    ``TypeError`` for what JSON cannot carry."""
    try:
        data = pydantic_core.to_json(payload, inf_nan_mode="constants")
    except (pydantic_core.PydanticSerializationError, ValueError, TypeError, RecursionError):
        data = None
    if data is None or b"NaN" in data or b"Infinity" in data:
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    return data


class SdkProvider:
    """One provider over its SDK. The SDK is imported lazily: ``ensure_sdk()`` raises
    ``SdkLoadError``."""

    def __init__(
        self,
        spec: ProviderSpec,
        credential: Credential,
        *,
        base_url: str | None = None,
        headers: dict[str, str] | None = None,
        streaming: bool = True,
        retry: RetryPolicy | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        scrub: Scrub | None = None,
        settings: Mapping[str, str] | None = None,
        reveal: Callable[[str], None] | None = None,
    ) -> None:
        if spec.transport not in TRANSPORTS:
            raise ValueError(f"provider {spec.name!r}: no transport {spec.transport!r} (ai/registry.py)")
        self.spec = spec
        self.name = spec.name
        self.transport = TRANSPORTS[spec.transport]
        self.credential_var = credential.var
        """Where the credential came from, named when the API refuses it."""
        self.base_url = base_url
        self.headers = dict(headers or {})
        """Sent with every request (``default_headers`` of the SDK client)."""
        self.streaming = streaming
        self.retry = retry or RetryPolicy()
        self.timeout_s = timeout_s
        self.price_provider = spec.price_provider
        self._credential = credential
        self._scrub_extra = scrub
        self._settings = dict(settings or {})
        self._revealed: set[str] = set(credential.secrets)
        self._reveal_extra = reveal
        self._wires: dict[str, Wire] = {}
        self._client: Any = None
        self._sdk: Any = None

    def wire_for(self, model: Model) -> Wire:
        """The wire of ``model``'s API (``registry.APIS``); ``UnsupportedApiError`` when this
        provider's SDK does not speak it."""
        if model.api not in self._wires:
            self._wires[model.api] = wire_for(model.api, self.spec)
        return self._wires[model.api]

    def ensure_sdk(self) -> None:
        """Import the SDK and build the client now (provider setup calls this for the run's model)."""
        if self._client is None:
            tls = TlsContext.start()  # OpenSSL reads the CA bundle on a thread while the SDK imports
            sdk = import_sdk(self.transport.sdk)
            hooks: dict[str, list[Callable[..., Any]]] = {
                "request": [self._on_request],
                "response": [_on_http_response],
            }
            connection = Connection(
                self._credential,
                self.base_url,
                self.headers,
                self.timeout_s,
                hooks,
                self._settings,
                self.reveal,
                tls=tls.get,
            )
            self._client = load(self.transport.client)(sdk, connection)
            self._sdk = sdk

    def reveal(self, secret: str) -> None:
        """A secret met after setup (a token a cloud's client minted): masked from now on."""
        if secret and secret not in self._revealed:
            self._revealed.add(secret)
            if self._reveal_extra is not None:
                self._reveal_extra(secret)

    async def _on_request(self, request: Any) -> None:
        """httpx request hook: the bearer token a client sends (minted, refreshed) is a secret."""
        scheme, _, token = str(request.headers.get("authorization", "")).partition(" ")
        if scheme.lower() == "bearer" and token:
            self.reveal(token)

    def scrub(self, text: str) -> str:
        for key in sorted(self._revealed, key=len, reverse=True):
            if len(key) >= 4:
                text = text.replace(key, "***")
        return self._scrub_extra(text) if self._scrub_extra else text

    async def stream(
        self, request: ProviderRequest, hooks: ProviderHooks, abort: AbortSignal
    ) -> AsyncIterator[AssistantStreamEvent]:
        base = AssistantMessage(provider=self.name, model=request.model.id, api=request.model.api)
        queue: asyncio.Queue[AssistantStreamEvent | None] = asyncio.Queue()
        task = asyncio.create_task(self._produce(request, hooks, abort, base, queue.put_nowait))
        task.add_done_callback(lambda _: queue.put_nowait(None))  # also when cancelled before it ran
        watcher = asyncio.create_task(abort.wait())
        watcher.add_done_callback(lambda _: task.cancel())
        try:
            while True:
                event = await queue.get()
                if event is None:  # the task ended without a terminal event: it never started
                    info = Classified("aborted", abort.reason or "Request was aborted")
                    yield StreamError(self._failed(base, info))
                    return
                yield event
                if isinstance(event, StreamDone | StreamError):
                    return
        finally:
            watcher.cancel()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _produce(
        self, request: ProviderRequest, hooks: ProviderHooks, abort: AbortSignal, base: AssistantMessage, emit: Emit
    ) -> None:
        try:
            self.ensure_sdk()
            wire = self.wire_for(request.model)
            body = wire.body(request, self.streaming)

            async def report(attempt: int, status: int | None, delay_s: float, error: str) -> None:
                await hooks.on_retry(attempt, status, delay_s, self.scrub(error))

            message = await run_with_retries(
                lambda: self._attempt(wire, body, request, hooks, base, emit), self.retry, report, abort
            )
            emit(StreamError(message) if message.stop_reason == "error" else StreamDone(message))
        except asyncio.CancelledError:
            emit(StreamError(self._failed(base, Classified("aborted", abort.reason or "Request was aborted"))))
        except Exception as exc:  # the contract: stream() ends in StreamError, never raises
            emit(StreamError(self._failed(base, classify(exc))))

    async def _attempt(
        self,
        wire: Wire,
        body: dict[str, Any],
        request: ProviderRequest,
        hooks: ProviderHooks,
        base: AssistantMessage,
        emit: Emit,
    ) -> AssistantMessage:
        state = StreamState(base.model_copy(deep=True))
        payload = await hooks.on_payload(body)
        attempt = _Attempt(hooks)
        token = _CURRENT.set(attempt)
        options: dict[str, Any] = {"headers": dict(request.options.headers)} if request.options.headers else {}
        sent = {"content": encode_body(payload)} if self.transport.raw_body else {"body": payload}
        try:
            if payload.get("stream", self.streaming):
                events, close = await self._open_stream(wire, sent, options)
                warm_up()  # the request is out: what the turns import loads while the answer comes
                emit(StreamStart(state.snapshot()))
                try:
                    async for event in events:
                        for delta in wire.feed(event, state):
                            emit(delta)
                        if state.complete:  # what follows (end of body) cannot undo a complete message
                            break
                    if not state.complete:
                        wire.end_of_stream(state, payload)
                finally:
                    await close(state.complete)
                if not state.complete:
                    raise IncompleteStreamError(f"stream ended before {wire.terminal}")
            else:
                response = await self._client.post(wire.path, **sent, cast_to=object, options=options)
                if not isinstance(response, dict):
                    raise ProviderError(Classified("fatal", "the response body is not a JSON object"))
                wire.whole(response, state)
                emit(StreamStart(state.snapshot()))
        except ProviderError:
            raise
        except Exception as exc:
            raise ProviderError(classify(exc)) from exc
        finally:
            _CURRENT.reset(token)
        message = state.finish()
        message.request_id = (
            attempt.headers.get("request-id") or attempt.headers.get("x-request-id") or message.response_id
        )
        message.cost_usd = cost_usd(request.model, message.usage, state.response_model, self.price_provider)
        return message

    async def _open_stream(
        self, wire: Wire, sent: dict[str, Any], options: dict[str, Any]
    ) -> tuple[AsyncIterator[dict[str, Any]], Callable[[bool], Awaitable[None]]]:
        """Send the request; its reply's events as the API's JSON objects, and how to let go of
        the response (``complete``: the message is whole, so the rest of the body is read and the
        connection kept for the next request, ``keep_connection``). The SDK sends and raises its
        status errors; the body is read as it is (``ai/sse.py``, ``wire.decode``), or, for a
        transport whose framing only its SDK reads (``TransportRow.sse``: Bedrock's AWS event
        stream), through the SDK's own decoder, asked for plain objects (``cast_to=object``: no
        typed event models)."""
        if not self.transport.sse:
            stream = await self._client.post(
                wire.path,
                **sent,
                cast_to=object,
                stream=True,
                stream_cls=self._sdk.AsyncStream[object],
                options=options,
            )
            return stream, lambda complete: stream.close()
        import httpx2  # the SDKs' HTTP client, loaded with them

        response = await self._client.post(wire.path, **sent, cast_to=httpx2.Response, stream=True, options=options)
        chunks = response.aiter_bytes()

        async def close(complete: bool) -> None:
            if complete:
                await keep_connection(chunks)
            await response.aclose()

        return _decoded(wire, chunks), close

    def _failed(self, base: AssistantMessage, info: Classified) -> AssistantMessage:
        message = base.model_copy(deep=True)
        message.stop_reason = "aborted" if info.kind == "aborted" else "error"
        message.error_kind = info.kind
        status = f" (HTTP {info.status})" if info.status and str(info.status) not in info.message else ""
        message.error_message = self.scrub(self._explained(info, info.message + status))
        message.cost_usd = 0.0
        return message

    def _explained(self, info: Classified, detail: str) -> str:
        """The error in the user's terms when it is about their setup (the key, the endpoint)."""
        if info.kind == "auth":
            where = f" in {self.credential_var}" if self.credential_var else ""
            fix = self.spec.credential_fix or "check that the key is valid"
            return f"the {self.name} API refused the credential{where}: {detail}; {fix}"
        if info.status == 404 and self.spec.not_found_fix:
            return f"{detail}; {self.spec.not_found_fix}"
        if info.kind == "unreachable":
            return f"cannot reach the {self.name} API at {self.base_url or 'its default endpoint'}: {detail}"
        return detail
