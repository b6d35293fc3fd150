"""The ``openai`` SDK provider: OpenAI itself, GitHub Models, the Copilot API, any compatible endpoint.

The API is chosen per request from catalog data (``Model.api``): ``openai-responses`` uses the
Responses API, anything else Chat Completions. Catalog headers (the Copilot API's
``Copilot-Integration-Id``, ``X-Initiator``, ``X-Interaction-Id``) go with every request.
"""

from __future__ import annotations

from typing import Any

from aw_action.ai.openai_chat import ChatWire
from aw_action.ai.openai_responses import API as RESPONSES_API
from aw_action.ai.openai_responses import ResponsesWire
from aw_action.ai.sdk_provider import SdkProvider, Wire, import_sdk
from aw_action.ai.types import Model


class OpenAIProvider(SdkProvider):
    def __init__(self, name: str, api_key: str, *, max_tokens_field: str | None = None, **kwargs: Any) -> None:
        super().__init__(name, api_key, **kwargs)
        self._chat = ChatWire(max_tokens_field)
        self._responses = ResponsesWire()

    def _make_client(self, api_key: str, http_client_hooks: dict[str, list[Any]]) -> tuple[Any, Any]:
        openai = import_sdk("openai")
        client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=self.base_url,
            default_headers=self.headers or None,
            max_retries=0,
            timeout=openai.Timeout(self.timeout_s, connect=min(10.0, self.timeout_s)),
            http_client=openai.DefaultAsyncHttpxClient(event_hooks=http_client_hooks),
        )
        return openai, client

    def wire_for(self, model: Model) -> Wire:
        return self._responses if model.api == RESPONSES_API else self._chat
