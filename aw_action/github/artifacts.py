"""Artifact upload from inside the container, with GitHub's artifact v4 protocol.

The protocol (actions/toolkit ``packages/artifact``; nektos/act ``pkg/artifacts/artifacts_v4.go``):

1. backend ids from the runtime token: a JWT whose ``scp`` claim holds
   ``Actions.Results:<workflow_run_backend_id>:<workflow_job_run_backend_id>`` (read, not verified);
2. ``CreateArtifact`` (Twirp, JSON, ``POST {origin of ACTIONS_RESULTS_URL}/twirp/github.actions.results.
   api.v1.ArtifactService/CreateArtifact``) returns a signed blob URL;
3. the zip goes to that URL as Azure blocks (``comp=block`` per 8 MiB chunk, then ``comp=blocklist``);
   act's local server appends blocks in arrival order, so blocks are sent one at a time;
4. ``FinalizeArtifact`` with the size and ``sha256:<hex>`` returns the artifact id.

Responses are read in snake_case (GitHub) or camelCase (act). Twirp calls and block uploads are
retried on 429/5xx and transport errors; everything else raises ``ArtifactError``. The caller
bounds the total time by cancelling the task.
"""

from __future__ import annotations

import base64
import binascii
import json
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential, wait_random

from aw_action.environment.runner import RUNTIME_TOKEN_VAR, RunnerFacts
from aw_action.github.archive import ZipArchive, zip_directory
from aw_action.lazy_dataclass import dataclass

SERVICE_PATH = "/twirp/github.actions.results.api.v1.ArtifactService/"
BLOCK_SIZE = 8 * 1024 * 1024
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
ARTIFACT_VERSION = 4
"""What upload-artifact v4 sends (no ``mime_type``): accepted by GitHub and by every act release
(act's older servers reject the unknown ``mime_type`` field that version 7 adds)."""
INVALID_NAME_CHARS = frozenset('":<>|*?\r\n\\/')


class ArtifactError(Exception):
    pass


class _Retryable(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)


@dataclass(frozen=True)
class BackendIds:
    workflow_run: str
    workflow_job_run: str


@dataclass(frozen=True)
class UploadResult:
    artifact_id: str
    name: str
    size: int
    sha256: str
    files: int


def backend_ids(token: str) -> BackendIds:
    """The ids in the runtime token's ``Actions.Results:<run>:<job>`` scope."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ArtifactError(f"{RUNTIME_TOKEN_VAR} is not a JWT")
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, binascii.Error) as exc:
        raise ArtifactError(f"{RUNTIME_TOKEN_VAR} payload unreadable: {type(exc).__name__}") from None
    scopes = str(payload.get("scp", "")).split() if isinstance(payload, dict) else []
    for scope in scopes:
        fields = scope.split(":")
        if len(fields) == 3 and fields[0] == "Actions.Results" and fields[1] and fields[2]:
            return BackendIds(fields[1], fields[2])
    raise ArtifactError(f"{RUNTIME_TOKEN_VAR} has no Actions.Results scope")


def validate_name(name: str) -> None:
    bad = sorted(INVALID_NAME_CHARS & set(name))
    if not name.strip() or bad:
        raise ArtifactError(f"invalid artifact name {name!r}")


def is_ghes(server_url: str) -> bool:
    """Artifact v4 exists on github.com and GHE.com only (the toolkit's ``isGhes``)."""
    host = (urlsplit(server_url or "https://github.com").hostname or "").lower()
    return not (host == "github.com" or host.endswith(".ghe.com") or host.endswith(".localhost"))


def field(payload: Mapping[str, Any], snake: str) -> Any:
    """A response field in either casing (``signed_upload_url`` / ``signedUploadUrl``)."""
    head, *rest = snake.split("_")
    camel = head + "".join(p.title() for p in rest)
    return payload.get(snake, payload.get(camel))


def _with_query(url: str, query: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{query}"


class ArtifactClient:
    def __init__(
        self,
        results_url: str,
        token: str,
        client: httpx.AsyncClient,
        *,
        on_secret: Callable[[str], None] = lambda _: None,
        scrub: Callable[[str], str] | None = None,
        attempts: int = 5,
        backoff_s: float = 3.0,
    ) -> None:
        parts = urlsplit(results_url)
        self._base = f"{parts.scheme}://{parts.netloc}{SERVICE_PATH}"  # the origin, as the toolkit uses it
        self._scrub = scrub
        self._token = token
        self._client = client
        self._on_secret = on_secret
        self._attempts = attempts
        self._backoff_s = backoff_s
        self.ids = backend_ids(token)

    async def _retrying(self, call: Callable[[], Any]) -> Any:
        retry = AsyncRetrying(
            stop=stop_after_attempt(self._attempts),
            wait=wait_exponential(multiplier=self._backoff_s, exp_base=1.5) + wait_random(0, self._backoff_s / 3),
            retry=retry_if_exception(lambda e: isinstance(e, _Retryable | httpx.TransportError)),
            reraise=True,
        )
        try:
            return await retry(call)
        except _Retryable as exc:
            raise ArtifactError(str(exc)) from None
        except httpx.TransportError as exc:
            raise ArtifactError(f"network error: {type(exc).__name__}") from None

    async def twirp(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        async def call() -> dict[str, Any]:
            response = await self._client.post(
                self._base + method,
                json=body,
                headers={"Authorization": f"Bearer {self._token}", "Accept": "application/json"},
            )
            if response.status_code in RETRY_STATUSES:
                raise _Retryable(f"{method}: HTTP {response.status_code}")
            if response.status_code != 200:
                raise ArtifactError(f"{method}: HTTP {response.status_code}: {_twirp_message(response)}")
            try:
                payload = response.json()
            except ValueError:
                raise ArtifactError(f"{method}: response is not JSON") from None
            if not isinstance(payload, dict):
                raise ArtifactError(f"{method}: response is not a JSON object")
            return payload

        result: dict[str, Any] = await self._retrying(call)
        return result

    async def _put(self, url: str, content: bytes, headers: dict[str, str], what: str) -> None:
        async def call() -> None:
            response = await self._client.put(url, content=content, headers=headers)
            if response.status_code in RETRY_STATUSES:
                raise _Retryable(f"{what}: HTTP {response.status_code}")
            if not 200 <= response.status_code < 300:
                raise ArtifactError(f"{what}: HTTP {response.status_code}")

        await self._retrying(call)

    async def upload_blob(self, signed_url: str, archive: ZipArchive) -> None:
        block_ids: list[str] = []
        with archive.path.open("rb") as handle:
            for index, chunk in enumerate(iter(lambda: handle.read(BLOCK_SIZE), b"")):
                block_id = base64.b64encode(f"{index:06d}".encode()).decode()
                block_ids.append(block_id)
                url = _with_query(signed_url, f"comp=block&blockid={quote(block_id, safe='')}")
                await self._put(url, chunk, {"Content-Type": "application/octet-stream"}, f"block {index}")
        body = '<?xml version="1.0" encoding="utf-8"?><BlockList>'
        body += "".join(f"<Latest>{b}</Latest>" for b in block_ids) + "</BlockList>"
        headers = {"Content-Type": "application/xml", "x-ms-blob-content-type": "application/zip"}
        await self._put(_with_query(signed_url, "comp=blocklist"), body.encode(), headers, "block list")

    async def upload(self, name: str, root: Path, extra: Mapping[str, Path] | None = None) -> UploadResult:
        """Uploads ``root`` (and the ``extra`` files, by archive name) as artifact ``name``."""
        validate_name(name)
        ids = {
            "workflow_run_backend_id": self.ids.workflow_run,
            "workflow_job_run_backend_id": self.ids.workflow_job_run,
        }
        with tempfile.TemporaryDirectory(prefix="aw-artifact-") as tmp:
            archive = zip_directory(root, Path(tmp) / f"{name}.zip", extra, self._scrub)
            created = await self.twirp("CreateArtifact", {**ids, "name": name, "version": ARTIFACT_VERSION})
            signed_url = field(created, "signed_upload_url")
            if not field(created, "ok") or not isinstance(signed_url, str) or not signed_url:
                raise ArtifactError("CreateArtifact: no signed upload URL in the response")
            self._mask_signature(signed_url)
            await self.upload_blob(signed_url, archive)
        finalized = await self.twirp(
            "FinalizeArtifact", {**ids, "name": name, "size": str(archive.size), "hash": f"sha256:{archive.sha256}"}
        )
        artifact_id = field(finalized, "artifact_id")
        if not field(finalized, "ok") or artifact_id in (None, ""):
            raise ArtifactError("FinalizeArtifact: the server did not accept the artifact")
        return UploadResult(str(artifact_id), name, archive.size, archive.sha256, archive.files)

    def _mask_signature(self, signed_url: str) -> None:
        query = urlsplit(signed_url).query
        raw = [p.partition("=")[2] for p in query.split("&") if p.startswith("sig=")]
        for sig in [*raw, *parse_qs(query).get("sig", [])]:
            self._on_secret(sig)
            self._on_secret(quote(sig, safe=""))


def _twirp_message(response: httpx.Response) -> str:
    try:
        payload = response.json()
    except ValueError:
        return response.text[:200].strip() or response.reason_phrase
    if isinstance(payload, dict) and payload.get("msg"):
        return str(payload["msg"])[:300]
    return response.reason_phrase


def artifact_url(runner: RunnerFacts, artifact_id: str) -> str | None:
    if not runner.server_url or runner.run_url is None:
        return None
    return f"{runner.run_url}/artifacts/{artifact_id}"
