"""The providers the harness can build, as two tables: the APIs it speaks and the SDK clients that
carry them. Code is named here, not imported: a row's module loads when a provider first uses it,
and an SDK (``anthropic``, ``openai``) only when the provider sends its first request
(``SdkProvider.ensure_sdk``), so a run imports nothing it does not use.

- ``APIS``: one row per wire format (``Model.api``): the SDK that speaks it and the factory of
  its ``Wire`` (body, events; ``ai/sdk_provider.Wire``). ``faux`` is served in-process by the
  scripted provider (``ai/faux.py``) and has no SDK.
- ``TRANSPORTS``: one row per way of building an SDK client (``ProviderSpec.transport``): the SDK
  module and the function that builds its async client for an endpoint (``ai/transports.py``).

A provider of ``models.json`` is a transport plus its endpoint and credential rows (``providers``,
``credentials``); a new cloud that speaks an existing API through its SDK's own client (Bedrock,
Vertex, Azure OpenAI) is a transport row, a provider row and its credential rows.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from aw_action.exits import SdkLoadError
from aw_action.lazy_dataclass import dataclass

if TYPE_CHECKING:
    from aw_action.ai.catalog import ProviderSpec
    from aw_action.ai.wire import Wire


@dataclass(frozen=True)
class ApiRow:
    api: str
    sdk: str | None
    """The SDK that speaks it (any transport of that SDK carries it); None: served in-process."""
    wire: str | None
    """``module:function`` returning the API's ``Wire`` for a ``ProviderSpec``."""


@dataclass(frozen=True)
class TransportRow:
    name: str
    sdk: str
    """The module imported when the first request goes out."""
    client: str
    """``module:function(sdk, connection)`` returning the SDK's async client."""
    raw_body: bool = False
    """The client sends a request body as it is: the provider hands it the JSON bytes
    (``sdk_provider.encode_body``) instead of the body, sparing the SDK's own walk of it. False
    for a client that rewrites the body (a cloud's that moves the model into the URL)."""
    sse: bool = True
    """A streamed reply is standard server-sent events, which the harness frames itself
    (``ai/sse.py``); False for a framing only the SDK's decoder reads (Bedrock's AWS event
    stream), whose events still reach the wire as plain JSON objects."""


APIS: dict[str, ApiRow] = {
    row.api: row
    for row in (
        ApiRow("anthropic-messages", "anthropic", "aw_action.ai.anthropic_messages:wire"),
        ApiRow("openai-completions", "openai", "aw_action.ai.openai_chat:wire"),
        ApiRow("openai-responses", "openai", "aw_action.ai.openai_responses:wire"),
        ApiRow("faux", None, None),
        ApiRow("replay", None, None),
    )
}
TRANSPORTS: dict[str, TransportRow] = {
    row.name: row
    for row in (
        TransportRow("anthropic", "anthropic", "aw_action.ai.transports:anthropic_client", raw_body=True),
        TransportRow("openai", "openai", "aw_action.ai.transports:openai_client", raw_body=True),
        TransportRow("bedrock", "anthropic", "aw_action.ai.transports:bedrock_client", sse=False),
        TransportRow("vertex", "anthropic", "aw_action.ai.transports:vertex_client"),
        TransportRow("azure", "openai", "aw_action.ai.transports:azure_client"),
    )
}


class UnsupportedApiError(ValueError):
    """A model's API that the provider's transport does not carry."""


def load(reference: str) -> Any:
    """The object a ``module:name`` reference names (the module is imported now)."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def import_sdk(module: str) -> Any:
    """Import a provider SDK; any failure (missing, or a broken install raising anything at
    import) becomes ``SdkLoadError`` naming the module (spec §11.2.1: exit 2, no session)."""
    try:
        return importlib.import_module(module)
    except Exception as exc:
        raise SdkLoadError(module, f"{type(exc).__name__}: {exc}") from exc


def wire_for(api: str, spec: ProviderSpec) -> Wire:
    """The ``Wire`` of ``api`` as ``spec``'s provider speaks it; ``UnsupportedApiError`` when its
    transport does not carry that API."""
    row = APIS.get(api)
    transport = TRANSPORTS.get(spec.transport or "")
    if row is None or row.wire is None or transport is None or row.sdk != transport.sdk:
        raise UnsupportedApiError(f"provider {spec.name!r} cannot serve API {api!r}")
    wire: Wire = load(row.wire)(spec)
    return wire
