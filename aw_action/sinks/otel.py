"""OpenTelemetry traces over OTLP/HTTP (protobuf), following the GenAI semantic conventions.

Spans: ``invoke_agent`` for the session; children ``chat {model}`` (one per model request,
CLIENT) and ``execute_tool {name}`` (one per tool call). Attributes are counts, names, ids and
money, never prompt, response, tool-argument or tool-output text (spec §13). Every string
attribute passes through the run's redactor.

Where spans go (``resolve_targets``): the configured endpoint; else gh-aw's fan-out list
``GH_AW_OTLP_ENDPOINTS`` (``[{"url", "headers": "k=v,..."}]``, compiled from
``observability.otlp``; every entry gets every span); else ``OTEL_EXPORTER_OTLP_*``. The session
span is parented on ``TRACEPARENT`` (W3C ``00-<trace id>-<span id>-<flags>``, gh-aw's agent-job
span) when it holds a valid one, so the run's spans join the workflow's trace.

Contracts: the SDK is imported only when an endpoint is configured (``OtelSink`` construction);
export runs in the SDK's background thread; failures never raise out of this module: they are
collected (``take_failures``) for the caller to report as warnings; the SDK's own log output is
captured rather than printed, so stderr stays pure JSONL. ``shutdown`` is bounded by a timeout.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from aw_action.environment.tuning import OTLP_TIMEOUT_S
from aw_action.lazy_dataclass import dataclass
from aw_action.run.ledger import RequestRecord
from aw_action.run.redact import Redactor
from aw_action.sinks import genai

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.trace import Span

DEFAULT_TIMEOUT_S = 5.0
SCOPE = "aw-harness"
Attrs = Mapping[str, str | int | float | bool | Sequence[str]]


def otlp_timeout(env: Mapping[str, str]) -> float:
    """Seconds per OTLP export and for the final flush: ``AW_OTLP_TIMEOUT_S`` (kept within
    0.1-30), default 5; a value that is not a positive number is an invocation error."""
    return min(max(OTLP_TIMEOUT_S.number(env, DEFAULT_TIMEOUT_S) or DEFAULT_TIMEOUT_S, 0.1), 30.0)


@dataclass(frozen=True)
class OtlpTarget:
    endpoint: str
    """Full traces URL (``.../v1/traces``)."""
    headers: dict[str, str] = field(default_factory=dict)


def parse_headers(spec: str) -> dict[str, str]:
    """``k1=v1,k2=v2`` with URL-encoded values (the OTEL_EXPORTER_OTLP_HEADERS format)."""
    out: dict[str, str] = {}
    for part in spec.split(","):
        key, sep, value = part.partition("=")
        if sep and key.strip():
            out[key.strip().lower()] = unquote(value.strip())
    return out


def resolve_target(endpoint: str | None, headers: Mapping[str, str], env: Mapping[str, str]) -> OtlpTarget | None:
    """The configured endpoint (``observability.otlp``) wins; else the standard OTEL_* variables.

    A base URL gets ``/v1/traces`` appended (as OTEL_EXPORTER_OTLP_ENDPOINT does); a URL that
    already ends with it, or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, is used as-is. Configured
    headers override the environment's.
    """
    merged = parse_headers(env.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or env.get("OTEL_EXPORTER_OTLP_HEADERS") or "")
    merged.update({k.lower(): v for k, v in headers.items()})
    if endpoint:
        url = endpoint.strip()
    elif env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        return OtlpTarget(env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].strip(), merged)
    elif env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        url = env["OTEL_EXPORTER_OTLP_ENDPOINT"].strip()
    else:
        return None
    if not url.rstrip("/").endswith("/v1/traces"):
        url = url.rstrip("/") + "/v1/traces"
    return OtlpTarget(url, merged)


GH_AW_ENDPOINTS_ENV = "GH_AW_OTLP_ENDPOINTS"


def _traces_url(url: str) -> str:
    url = url.strip()
    return url if url.rstrip("/").endswith("/v1/traces") else url.rstrip("/") + "/v1/traces"


def gh_aw_targets(raw: str) -> list[OtlpTarget]:
    """gh-aw's ``GH_AW_OTLP_ENDPOINTS``; ``ValueError`` naming the variable when it is malformed."""
    try:
        entries = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"{GH_AW_ENDPOINTS_ENV}: not JSON ({exc})") from None
    if not isinstance(entries, list):
        raise ValueError(f"{GH_AW_ENDPOINTS_ENV}: expected a list of {{url, headers}} objects")
    targets: list[OtlpTarget] = []
    for index, entry in enumerate(entries):
        url = entry.get("url") if isinstance(entry, dict) else None
        headers = entry.get("headers", "") if isinstance(entry, dict) else ""
        if not isinstance(url, str) or not url.strip() or not isinstance(headers, str):
            raise ValueError(f"{GH_AW_ENDPOINTS_ENV}[{index}]: expected {{url: string, headers?: string}}")
        targets.append(OtlpTarget(_traces_url(url), parse_headers(headers)))
    return targets


def resolve_targets(
    endpoint: str | None, headers: Mapping[str, str], env: Mapping[str, str]
) -> tuple[list[OtlpTarget], str | None]:
    """Every endpoint that gets the run's spans, and a problem to report (a malformed
    ``GH_AW_OTLP_ENDPOINTS`` is reported and the ``OTEL_*`` variables are used instead)."""
    if not endpoint and env.get(GH_AW_ENDPOINTS_ENV, "").strip():
        try:
            targets = gh_aw_targets(env[GH_AW_ENDPOINTS_ENV])
        except ValueError as exc:
            single = resolve_target(endpoint, headers, env)
            return ([single] if single else []), str(exc)
        if targets:
            return targets, None
    single = resolve_target(endpoint, headers, env)
    return ([single] if single else []), None


def parent_context(traceparent: str | None) -> Any:
    """The OTel context of a W3C ``traceparent``, or None when it is absent or invalid."""
    if not traceparent or not traceparent.strip():
        return None
    from opentelemetry.trace import get_current_span
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    context = TraceContextTextMapPropagator().extract({"traceparent": traceparent.strip()})
    return context if get_current_span(context).get_span_context().is_valid else None


class _Failures(logging.Handler):
    """Collects export failures from the SDK's loggers and the exporter wrapper (thread-safe).

    The SDK logs the cause of a retried failure (e.g. connection refused) as a warning and the
    final give-up as an error; the error is reported with the last such cause appended."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self._cause = ""
        self.total = 0

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):  # a logging handler must never raise
            message = record.getMessage()
            if record.levelno >= logging.ERROR:
                self.add(f"{message} (last cause: {self._cause})" if self._cause else message)
            elif message.startswith("Transient error"):
                self._cause = message.removeprefix("Transient error ").split(" encountered while", 1)[0][:200]

    def add(self, message: str) -> None:
        with self._lock:
            self.total += 1
            self._pending.append(message[:500])

    def take(self) -> list[str]:
        with self._lock:
            taken, self._pending = self._pending, []
        return list(dict.fromkeys(taken))


class OtelSink:
    def __init__(
        self,
        targets: OtlpTarget | Sequence[OtlpTarget],
        resource: Mapping[str, str],
        redactor: Redactor,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

        targets = [targets] if isinstance(targets, OtlpTarget) else list(targets)
        self._redactor = redactor
        self.timeout_s = timeout_s
        self.endpoint = ", ".join(t.endpoint for t in targets)
        self.failures = _Failures()
        self._logger = logging.getLogger("opentelemetry")
        self._saved_propagate = self._logger.propagate
        self._logger.addHandler(self.failures)
        self._logger.propagate = False
        failures = self.failures

        class Recording(SpanExporter):
            def __init__(self, target: OtlpTarget) -> None:
                self.where = target.endpoint
                self.inner = OTLPSpanExporter(endpoint=target.endpoint, headers=dict(target.headers), timeout=timeout_s)

            def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
                before = failures.total
                try:
                    result = self.inner.export(spans)
                except Exception as exc:
                    failures.add(f"{type(exc).__name__}: {exc}")
                    return SpanExportResult.FAILURE
                if result is not SpanExportResult.SUCCESS and failures.total == before:
                    failures.add(f"export of {len(spans)} span(s) to {self.where} failed")
                return result

            def shutdown(self) -> None:
                self.inner.shutdown()  # type: ignore[no-untyped-call]

        clean = {k: redactor.text(v) for k, v in resource.items() if v}
        self._provider = TracerProvider(resource=Resource.create(clean), shutdown_on_exit=False)
        for target in targets:
            processor = BatchSpanProcessor(Recording(target), export_timeout_millis=timeout_s * 1000)
            self._provider.add_span_processor(processor)
        self._tracer = self._provider.get_tracer(SCOPE)
        self._session: Span | None = None

    def _attrs(self, attrs: Attrs) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in attrs.items():
            if isinstance(value, str):
                out[key] = self._redactor.text(value)
            elif isinstance(value, list | tuple):
                out[key] = [self._redactor.text(str(v)) for v in value]
            elif value is not None:
                out[key] = value
        return out

    def start_session(self, name: str, attrs: Attrs, start_ns: int, traceparent: str | None = None) -> bool:
        """Start the session span, a child of ``traceparent`` when that is a valid W3C parent;
        returns whether it was."""
        from opentelemetry.trace import SpanKind

        parent = parent_context(traceparent)
        self._session = self._tracer.start_span(
            name, context=parent, kind=SpanKind.INTERNAL, attributes=self._attrs(attrs), start_time=start_ns
        )
        return parent is not None

    def child(
        self, name: str, attrs: Attrs, start_ns: int, end_ns: int, *, client: bool = False, error: str | None = None
    ) -> None:
        """A finished child span of the session span (``error`` sets status ERROR with that text)."""
        from opentelemetry.trace import SpanKind, set_span_in_context

        context = set_span_in_context(self._session) if self._session is not None else None
        span = self._tracer.start_span(
            self._redactor.text(name),
            context=context,
            kind=SpanKind.CLIENT if client else SpanKind.INTERNAL,
            attributes=self._attrs(attrs),
            start_time=start_ns,
        )
        self._finish(span, error, end_ns)

    def chat(self, record: RequestRecord, request_model: str, conversation_id: str, end_ns: int) -> None:
        """A ``chat {model}`` span for one finished model request."""
        attrs = genai.chat_attributes(record, request_model, conversation_id)
        error = (record.error or record.status) if record.status != "ok" else None
        start = end_ns - record.duration_ms * 1_000_000
        self.child(f"chat {record.model}", attrs, start, end_ns, client=True, error=error)

    def tool(self, name: str, call_id: str, is_error: bool, duration_ms: int, end_ns: int) -> None:
        """An ``execute_tool {name}`` span for one finished tool call."""
        attrs = genai.tool_attributes(name, call_id, is_error)
        error = "tool returned an error" if is_error else None
        self.child(f"execute_tool {name}", attrs, end_ns - duration_ms * 1_000_000, end_ns, error=error)

    def end_session(self, attrs: Attrs, end_ns: int, error: str | None = None) -> None:
        if self._session is not None:
            self._session.set_attributes(self._attrs(attrs))
            self._finish(self._session, error, end_ns)
            self._session = None

    def _finish(self, span: Span, error: str | None, end_ns: int) -> None:
        from opentelemetry.trace import Status, StatusCode

        if error:
            span.set_status(Status(StatusCode.ERROR, self._redactor.text(error)[:200]))
        span.end(end_time=end_ns)

    def take_failures(self) -> list[str]:
        return [self._redactor.text(m) for m in self.failures.take()]

    def shutdown(self, budget_s: float | None = None) -> list[str]:
        """Flush for at most ``budget_s`` (default: one second more than the export timeout, so
        an export that gives up is reported as such) and stop, waiting at most one more second (or
        ``budget_s``, if shorter); returns the failures not yet taken.

        Both steps run on daemon threads that are waited for with a timeout: the SDK's
        ``force_flush`` ignores its own timeout and blocks for as long as an export takes (its
        retries included), and a hung collector must not hold the process."""
        budget = self.timeout_s + 1.0 if budget_s is None else budget_s
        flushed = _within(budget, self._provider.force_flush)
        stopped = _within(min(1.0, budget), self._provider.shutdown)
        if not flushed:
            self.failures.add(f"spans not flushed within {budget:g} s")
        if stopped:  # else the SDK thread may still log: keep it captured
            self._logger.removeHandler(self.failures)
            self._logger.propagate = self._saved_propagate
        return self.take_failures()


def _within(timeout_s: float, action: Callable[[], object]) -> bool:
    """Runs ``action`` on a daemon thread; True if it returned (not False) within ``timeout_s``."""
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(action()), name="otel-flush", daemon=True)
    worker.start()
    worker.join(timeout=timeout_s)
    return bool(outcome) and outcome[0] is not False
