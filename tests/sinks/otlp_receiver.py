"""A local OTLP/HTTP traces receiver (127.0.0.1) that decodes ExportTraceServiceRequest protobufs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.servers.http_server import LocalHTTPServer


def plain(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [plain(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


@dataclass
class Span:
    name: str
    span_id: bytes
    trace_id: bytes
    parent_span_id: bytes
    kind: int
    attributes: dict[str, Any]
    status_code: int
    resource: dict[str, Any]


@dataclass
class Receiver:
    url: str
    status: int = 200
    requests: list[dict[str, Any]] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)

    def named(self, prefix: str) -> list[Span]:
        return [s for s in self.spans if s.name.startswith(prefix)]


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            receiver.requests.append(
                {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
            )
            if receiver.status == 200:
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                for rs in request.resource_spans:
                    resource = {a.key: plain(a.value) for a in rs.resource.attributes}
                    for ss in rs.scope_spans:
                        for s in ss.spans:
                            receiver.spans.append(
                                Span(
                                    s.name,
                                    s.span_id,
                                    s.trace_id,
                                    s.parent_span_id,
                                    s.kind,
                                    {a.key: plain(a.value) for a in s.attributes},
                                    s.status.code,
                                    resource,
                                )
                            )
            payload = ExportTraceServiceResponse().SerializeToString() if receiver.status == 200 else b"denied"
            self.send_response(receiver.status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def serve(status: int = 200) -> Iterator[Receiver]:
    """Generator for a pytest fixture: yields a running receiver, stops it afterwards."""
    receiver = Receiver(url="", status=status)
    server = LocalHTTPServer(("127.0.0.1", 0), _handler(receiver))
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
