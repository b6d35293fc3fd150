"""How many input tokens a model request will be counted as, before it is sent.

No tokenizer ships with the harness, so the estimate starts from text length (about four
characters a token, ``ai/usage.estimate_tokens``) and is reconciled with what the provider
counted:

- what an earlier answer already carries is exact: when the history holds an answer with
  reported usage, the request's input is that answer's prompt plus its output (as the provider
  counted them) plus an estimate of what came after it (tool results, steering);
- estimated text is scaled by ``ratio``, the provider's count over the estimate of the last
  request that added enough new text to measure (never below 1: the estimate is only ever
  raised), so a tokenizer that counts more than four characters a token is learned after one
  request;
- every request adds ``PER_MESSAGE_TOKENS`` per new message for the API's framing, and a request
  with tools and no reported history adds ``TOOLS_PREAMBLE_TOKENS`` for what the API puts
  around tool definitions (Anthropic documents a tool-use system prompt of 313 to 346 tokens;
  OpenAI renders the JSON schemas more compactly than the JSON the estimate counts).

What remains is the estimate's error on new text, which the budget gates accept.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from aw_action.agent.compaction import is_live, message_tokens
from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage, ToolSpec, Usage
from aw_action.ai.usage import estimate_tokens
from aw_action.lazy_dataclass import dataclass

PER_MESSAGE_TOKENS = 8
TOOLS_PREAMBLE_TOKENS = 400
MIN_SAMPLE_TOKENS = 64
"""New text shorter than this is too little to measure the tokenizer by."""
MAX_RATIO = 4.0


@dataclass(frozen=True)
class SizeEstimate:
    tokens: int
    """The input the request is expected to be counted as (never below ``known``)."""
    known: int
    """The part the provider already counted (an earlier answer's prompt and output)."""
    new_text: int
    """Estimated tokens of the text added since (before scaling and framing)."""
    framing: int = 0
    """Tokens allowed for the API's framing of that text (messages, the tools preamble)."""


def _prompt_tokens(usage: Usage) -> int:
    return usage.input + usage.cache_read + usage.cache_write


class RequestSizer:
    """Estimates requests and learns from the usage the provider reports back."""

    def __init__(self) -> None:
        self.ratio = 1.0

    def estimate(self, system_prompt: str, messages: Sequence[AnyMessage], tools: Sequence[ToolSpec]) -> SizeEstimate:
        for i in range(len(messages) - 1, -1, -1):
            m = messages[i]
            if isinstance(m, AssistantMessage) and is_live(m) and m.usage.total > 0:
                known = _prompt_tokens(m.usage) + m.usage.output + m.usage.reasoning
                after = messages[i + 1 :]
                return self._sized(known, sum(message_tokens(x) for x in after), len(after), preamble=False)
        text = estimate_tokens(system_prompt) + sum(
            estimate_tokens(t.name + t.description + json.dumps(t.parameters)) for t in tools
        )
        live = [m for m in messages if is_live(m)]
        return self._sized(0, text + sum(message_tokens(m) for m in live), len(live), preamble=bool(tools))

    def _sized(self, known: int, new_text: int, new_messages: int, *, preamble: bool) -> SizeEstimate:
        framing = PER_MESSAGE_TOKENS * new_messages + (TOOLS_PREAMBLE_TOKENS if preamble else 0)
        return SizeEstimate(known + math.ceil(new_text * self.ratio) + framing, known, new_text, framing)

    def reconcile(self, estimate: SizeEstimate, usage: Usage) -> None:
        """Learn the tokenizer from a request's reported prompt (nothing reported: no change)."""
        counted = _prompt_tokens(usage)
        if counted <= 0 or estimate.new_text < MIN_SAMPLE_TOKENS:
            return
        counted_text = counted - estimate.known - estimate.framing
        self.ratio = min(MAX_RATIO, max(1.0, counted_text / estimate.new_text))
