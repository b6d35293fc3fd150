"""AWF's api-proxy ``GET /reflect``: which provider endpoints the proxy serves, and their models.

gh-aw sets ``AWF_REFLECT_ENABLED=1`` for harnesses inside its sandbox. The proxy answers
``/reflect`` on every provider port (gh-aw-firewall ``containers/api-proxy/management.js``,
``server-factory.js``) with ``{"endpoints": [{"provider", "port", "base_url", "configured",
"models", "models_url", ...}], ...}``; ``models`` is a sorted list of ids or null. gh-aw itself
asks ``http://api-proxy:10000/reflect`` (``actions/setup/js/awf_reflect.cjs``), but port 10000 only
listens when an OpenAI key is configured, so the ports of the base URLs in the environment are
tried first.

Discovery is bounded: one deadline (``AW_REFLECT_TIMEOUT_S``, default 3 s) for all attempts (a
body still trickling in at the deadline may take one more read timeout), at most ``MAX_BYTES``
read. Every failure raises ``ReflectError`` with a one-line reason; the caller
warns and falls back to the environment. ``AW_REFLECT_URL`` replaces the list of URLs tried.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, ValidationError

from aw_action.environment.tuning import REFLECT_TIMEOUT_S, REFLECT_URL

if TYPE_CHECKING:
    import httpx

DEFAULT_TIMEOUT_S = 3.0
MAX_BYTES = 1 << 20
GH_AW_REFLECT_URL = "http://api-proxy:10000/reflect"


class ReflectError(Exception):
    """Discovery failed; the message says why (no secret: URLs here carry none)."""


class ReflectEndpoint(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)  # built when AWF is asked: gh-aw runs only

    provider: str
    base_url: str | None = None
    configured: bool = False
    models: list[str] | None = None
    models_url: str | None = None


class Reflection(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)

    endpoints: list[ReflectEndpoint]
    source: str = ""
    """The URL that answered."""

    def endpoint_for(self, names: Iterable[str]) -> ReflectEndpoint | None:
        """The configured endpoint whose provider is one of ``names`` (case-insensitive)."""
        wanted = {n.lower() for n in names}
        return next((e for e in self.endpoints if e.configured and e.provider.lower() in wanted), None)


def enabled(env: Mapping[str, str]) -> bool:
    return env.get("AWF_REFLECT_ENABLED", "").strip().lower() in ("1", "true", "yes")


def timeout_s(env: Mapping[str, str]) -> float:
    return REFLECT_TIMEOUT_S.number(env, DEFAULT_TIMEOUT_S) or DEFAULT_TIMEOUT_S


def candidate_urls(env: Mapping[str, str], base_urls: Iterable[str]) -> list[str]:
    """``AW_REFLECT_URL`` alone when set; else ``/reflect`` at the origin of each base URL, then
    gh-aw's own address."""
    override = REFLECT_URL.text(env)
    if override:
        return [override]
    urls: list[str] = []
    for url in base_urls:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc:
            urls.append(f"{parts.scheme}://{parts.netloc}/reflect")
    return list(dict.fromkeys([*urls, GH_AW_REFLECT_URL]))


def parse(body: bytes, source: str) -> Reflection:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReflectError(f"{source}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ReflectError(f"{source}: expected a JSON object")
    try:
        return Reflection.model_validate({**data, "source": source})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReflectError(f"{source}: {where}: {first['msg']}") from None


def fetch(urls: list[str], timeout: float = DEFAULT_TIMEOUT_S) -> Reflection:
    """The first answer of ``urls`` within one ``timeout`` for all of them. The client keeps
    ``trust_env`` (``NO_PROXY`` lists the proxy inside AWF)."""
    import httpx  # here: only a run that asks AWF pays for it (bench/PROFILE.md)

    deadline = time.monotonic() + timeout
    reasons: list[str] = []
    with httpx.Client(follow_redirects=False) as client:
        for url in urls:
            left = deadline - time.monotonic()
            if left <= 0:
                reasons.append(f"{url}: no time left")
                break
            try:
                return parse(_get(client, url, deadline), url)
            except ReflectError as exc:
                reasons.append(str(exc))
            except httpx.HTTPError as exc:
                reasons.append(f"{url}: {type(exc).__name__}: {exc}")
    raise ReflectError("; ".join(reasons) or "no URL to ask")


def discover(env: Mapping[str, str], base_urls: Iterable[str]) -> Reflection | None:
    """The proxy's answer when ``AWF_REFLECT_ENABLED`` is set, else None; ``ReflectError`` when
    discovery was asked for and failed."""
    if not enabled(env):
        return None
    return fetch(candidate_urls(env, base_urls), timeout_s(env))


def describe(reflection: Reflection) -> str:
    found = ", ".join(f"{e.provider} ({len(e.models or [])} models)" for e in reflection.endpoints if e.configured)
    return f"AWF /reflect at {reflection.source}: {found or 'no configured endpoint'}"


def unlisted(reflection: Reflection, names: Iterable[str], model_id: str) -> str | None:
    """A warning when the provider's endpoint lists its models and ``model_id`` is not one."""
    endpoint = reflection.endpoint_for(names)
    if endpoint is None or not endpoint.models or model_id in endpoint.models:
        return None
    shown = ", ".join(endpoint.models[:10])
    return f"model {model_id!r} is not among the models AWF's proxy lists for {endpoint.provider}: {shown}"


def _get(client: httpx.Client, url: str, deadline: float) -> bytes:
    """Each network wait is bounded by the time left; a body trickling in past the deadline is
    abandoned at its next chunk."""
    import httpx

    with client.stream("GET", url, timeout=httpx.Timeout(deadline - time.monotonic())) as response:
        if response.status_code != 200:
            raise ReflectError(f"{url}: HTTP {response.status_code}")
        body = bytearray()
        for chunk in response.iter_bytes():
            body.extend(chunk)
            if len(body) > MAX_BYTES:
                raise ReflectError(f"{url}: answer larger than {MAX_BYTES} bytes")
            if time.monotonic() > deadline:
                raise ReflectError(f"{url}: too slow")
        return bytes(body)
