"""Amazon Bedrock's wire: ``InvokeModelWithResponseStream`` as a local server answers it.

A Messages stream (built by ``tests.servers.anthropic``) goes out framed as AWS event-stream
(``application/vnd.amazon.eventstream``): one binary message per event, headers
``:event-type: chunk``, ``:content-type: application/json``, ``:message-type: event``, and a JSON
payload ``{"bytes": <base64 of the event's JSON>}`` (botocore's ``bedrock-runtime`` model:
``ResponseStream.chunk`` is a ``PayloadPart`` whose ``bytes`` is a blob). Each frame is
``total length, headers length, prelude CRC32, headers, payload, message CRC32``
(botocore ``eventstream.py``).

Every request's SigV4 signature is checked with botocore's own signer against the test
credentials (``SigV4Auth`` of service ``bedrock``, the request's own ``X-Amz-Date`` and
``SignedHeaders``); a request that fails the check, or a Bedrock API key that is not the test's,
gets Bedrock's 403.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import re
import struct
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from tests.servers import anthropic
from tests.servers.wire import ReceivedRequest, Reply, WireServer

ACCESS_KEY = "AKIATESTCLOUDS0001"
SECRET_KEY = "bedrock-test-SECRET-key-0123456789abcdef"
SESSION_TOKEN = "bedrock-test-SESSION-token-FwoGZXIvYXdzEJr"
REGION = "us-east-1"
API_KEY = "bedrock-api-key-ABSKtest0123456789"
_AUTH = re.compile(
    r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
    r"SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$"
)


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return struct.pack(">B", len(raw_name)) + raw_name + struct.pack(">BH", 7, len(raw_value)) + raw_value


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One AWS event-stream message."""
    head = b"".join(_header(k, v) for k, v in headers.items())
    prelude = struct.pack(">II", 12 + len(head) + len(payload) + 4, len(head))
    prelude += struct.pack(">I", binascii.crc32(prelude) & 0xFFFFFFFF)
    body = prelude + head + payload
    return body + struct.pack(">I", binascii.crc32(body) & 0xFFFFFFFF)


def chunk_frame(event: dict[str, Any]) -> bytes:
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode(), "p": "abcdef"})
    headers = {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    return frame(headers, payload.encode())


def stream_reply(**kw: Any) -> Reply:
    """A Messages stream (``anthropic.stream_events`` arguments) as Bedrock frames it."""
    events = [json.loads(line.split("data: ", 1)[1]) for line in anthropic.stream_events(**kw)]
    frames = [chunk_frame(e) for e in events if e["type"] != "ping"]
    headers = {"content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "bedrock-req-1"}
    return Reply(200, headers, frames)


def refused(message: str = "The security token included in the request is invalid.") -> Reply:
    return Reply.json_body({"message": message}, 403, {"x-amzn-errortype": "UnrecognizedClientException"})


def sigv4_valid(request: ReceivedRequest, *, secret_key: str = SECRET_KEY) -> bool:
    """Whether ``request`` carries a SigV4 signature botocore's signer computes for it with the
    test credentials (``ACCESS_KEY``, ``secret_key``, ``SESSION_TOKEN``)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    match = _AUTH.match(request.headers.get("authorization", ""))
    if match is None:
        return False
    access_key, _day, region, service, signed, signature = match.groups()
    if access_key != ACCESS_KEY or request.headers.get("x-amz-security-token") != SESSION_TOKEN:
        return False
    headers = {name: request.headers.get(name, "") for name in signed.split(";")}
    url = f"http://{request.headers['host']}{request.path}"
    aws_request = AWSRequest(method=request.method, url=url, headers=headers, data=request.body)
    aws_request.context["timestamp"] = request.headers.get("x-amz-date", "")
    signer = SigV4Auth(Credentials(ACCESS_KEY, secret_key, SESSION_TOKEN), service, region)
    expected = signer.signature(signer.string_to_sign(aws_request, signer.canonical_request(aws_request)), aws_request)
    return hmac.compare_digest(expected, signature)


@dataclass
class BedrockServer:
    """A local Bedrock runtime: each model request checks its signature (or API key), then gets
    the next scripted reply."""

    replies: deque[Reply] = field(default_factory=deque)
    server: WireServer = field(init=False)

    def __post_init__(self) -> None:
        self.server = WireServer(default=self._answer)

    def _answer(self, request: ReceivedRequest) -> Reply:
        if not request.path.startswith("/model/"):
            return Reply.json_body({"message": f"no route {request.path}"}, 404)
        if request.headers.get("authorization", "").startswith("Bearer "):
            authorised = request.headers["authorization"] == f"Bearer {API_KEY}"
        else:
            authorised = sigv4_valid(request)
        if not authorised:
            return refused()
        return self.replies.popleft() if self.replies else Reply.json_body({"message": "no scripted reply"}, 500)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def model_requests(self) -> list[ReceivedRequest]:
        return [r for r in self.server.requests if r.path.startswith("/model/")]

    def __enter__(self) -> BedrockServer:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
