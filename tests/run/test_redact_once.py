"""Redaction once per record: each distinct string is redacted once however many writers build a
record from it, and a secret added later is masked in every string, those seen before included."""

from __future__ import annotations

import pytest

from aw_action.run import redact
from aw_action.run.redact import Redactor

SECRET = "tok-0123456789-abcdef"


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = redact.mask_shapes

    def counted(text: str, mask: str, **kw: object) -> str:
        seen.append(text)
        return real(text, mask, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(redact, "mask_shapes", counted)
    return seen


def test_the_strings_of_a_record_are_redacted_once_for_every_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _counting(monkeypatch)
    redactor = Redactor([SECRET])
    output = f"line\n{SECRET}\n" * 100
    event = {"type": "tool_execution_end", "result": {"text": output}, "args": {"command": "env"}}
    records = [redactor.obj({"writer": name, **event}) for name in ("jsonl", "session", "unified", "replay")]
    assert all(SECRET not in str(r) and r["result"]["text"].count("***") == 100 for r in records)
    assert len(seen) == len(set(seen)), "a string was redacted twice"
    strings = {"writer", "jsonl", "session", "unified", "replay", *event, "tool_execution_end", "text", output}
    assert len(seen) == len(strings | {"command", "env"})


def test_a_secret_added_later_is_masked_in_text_redacted_before() -> None:
    redactor = Redactor()
    text = f"the key is {SECRET}"
    assert redactor.text(text) == text
    redactor.add(SECRET)
    assert redactor.text(text) == "the key is ***"
    assert redactor.obj({SECRET: [text]}) == {"***": ["the key is ***"]}


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact, "MEMO_MAX_CHARS", 1000)
    monkeypatch.setattr(redact, "MEMO_MAX_STRING", 100)
    redactor = Redactor([SECRET])
    for i in range(200):
        assert redactor.text(f"{i:050d}{SECRET}") == f"{i:050d}***"
    assert redactor.text("x" * 500 + SECRET) == "x" * 500 + "***"
    assert redactor._memo_chars <= 1000 + 2 * 100 and len(redactor._memo) < 20
