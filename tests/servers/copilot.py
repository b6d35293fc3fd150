"""The Copilot API's flavour of the OpenAI wire formats, for the ``copilot`` provider.

The Copilot API (``api.githubcopilot.com``, reached through AWF's api-proxy at
``COPILOT_API_URL``) serves ``/chat/completions`` and, for the gpt-5/o3 families, ``/responses``
(gh-aw-firewall ``src/services/credentials/copilot-credential-env.ts``: ``COPILOT_PROVIDER_WIRE_API``).
Its chat streams end with one chunk that carries both ``finish_reason`` and ``usage`` (no
separate usage-only chunk), model ids have no provider prefix and Claude ids are dotted
(``claude-sonnet-4.5``). Responses streams are OpenAI's, reused from ``openai.py``.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from tests.servers.openai import chat_usage, responses_stream_reply
from tests.servers.wire import Reply

_ids = itertools.count(1)

__all__ = ["chat_stream_reply", "responses_stream_reply"]


def chat_stream_reply(
    *,
    text: str = "",
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None,
    use: dict[str, Any] | None = None,
    model: str = "claude-sonnet-4.5",
) -> Reply:
    cid = f"copilot-chat-{next(_ids)}"

    def chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> str:
        data: dict[str, Any] = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": 1,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if usage is not None:
            data["usage"] = usage
        return f"data: {json.dumps(data)}"

    out = [chunk({"role": "assistant", "content": ""})]
    if text:
        out.append(chunk({"content": text}))
    for index, (name, args) in enumerate(tool_calls or []):
        call = {"index": index, "id": f"toolu_vrtx_{next(_ids)}", "type": "function"}
        out.append(chunk({"tool_calls": [{**call, "function": {"name": name, "arguments": json.dumps(args)}}]}))
    finish = "tool_calls" if tool_calls else "stop"
    out.append(chunk({}, finish, use or chat_usage()))
    out.append("data: [DONE]")
    return Reply.sse(out, headers={"x-request-id": f"copilot-req-{next(_ids)}"})
