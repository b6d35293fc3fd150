"""Model output cannot break the contract (issue 10, item 3): invalid Unicode and control
characters in streamed text and tool arguments, through the real SDK and the real CLI, still
give one valid JSON object on stdout and valid UTF-8 JSON records everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.faults.matrix import check_contract, run_fault
from tests.servers import anthropic as wire
from tests.servers.wire import Reply

LONE = "\\ud800"
"""A lone surrogate as JSON writes it: valid JSON, no valid character behind it."""


def _delta(index: int, delta: dict[str, str], raw: str) -> str:
    """A ``content_block_delta`` record whose ``RAW`` placeholder becomes ``raw`` verbatim."""
    return wire._event("content_block_delta", {"index": index, "delta": delta}).replace("RAW", raw)


def spliced(text: str, command: str | None = None) -> Reply:
    """A turn whose text (and bash command) carry raw JSON escapes that the SDK decodes as lone
    surrogates and control characters (``json.dumps`` cannot write them, so they are spliced)."""
    events = wire.stream_events(text="x", tool_calls=[("bash", {})] if command is not None else None)
    out: list[str] = []
    for event in events:
        if '"text_delta"' in event:
            out.append(_delta(0, {"type": "text_delta", "text": "RAW"}, text))
        elif '"input_json_delta"' in event:
            if not any('"input_json_delta"' in e for e in out):
                raw = '{\\"command\\": \\"' + command + '\\"}'
                out.append(_delta(1, {"type": "input_json_delta", "partial_json": "RAW"}, raw))
        else:
            out.append(event)
    return Reply.sse(out)


def test_lone_surrogates_and_control_characters_in_model_output(tmp_path: Path) -> None:
    text = f"bad {LONE} text \\u0000 nul \\u001b[31m ansi \\udc00{LONE} tail"  # low then high: two lone halves
    command = f"echo {LONE}ok > out.txt"
    run = run_fault(
        tmp_path,
        [spliced(text, command), spliced(f"final {LONE} answer \\u0007")],
    )
    run.stdout.encode("utf-8")  # strict: the one JSON object is valid UTF-8
    result = check_contract(run, 0, "completed")
    assert result["final_message"] == "final \ufffd answer \x07"
    assistant = next(e["message"] for e in run.transcript() if e.get("message", {}).get("role") == "assistant")
    assert assistant["content"][0]["text"] == "bad \ufffd text \x00 nul \x1b[31m ansi \ufffd\ufffd tail"
    assert assistant["content"][1]["arguments"]["command"].startswith("echo \ufffdok")
    assert (tmp_path / "ws" / "out.txt").read_text() == "\ufffdok\n"  # the tool got clean text


def test_a_long_streamed_answer_completes(tmp_path: Path) -> None:
    """10 MB in 5 KB deltas: the run completes and records it (the time ratio against 100 MB
    is measured by ``bench/bench_streaming.py``, not here)."""
    size = 10 * 1024 * 1024
    piece = ("lorem ipsum " * 500)[:5000]
    events = wire.stream_events(text="x")
    start = next(i for i, e in enumerate(events) if "content_block_start" in e)
    delta = wire._event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": piece}})
    reply = Reply.sse([*events[: start + 1], *[delta] * (size // len(piece)), *events[start + 2 :]])
    run = run_fault(tmp_path, [reply])
    result = check_contract(run, 0, "completed")
    assert len(result["final_message"]) > 0
    [assistant] = [e["message"] for e in run.transcript() if e.get("message", {}).get("role") == "assistant"]
    assert len(assistant["content"][0]["text"]) == (size // len(piece)) * len(piece)
    assert json.dumps(result)
