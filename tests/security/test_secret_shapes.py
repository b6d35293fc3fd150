"""Secrets by shape (``security/untrusted_text/secret_shapes.py``): each row's ``start`` is the
literal every match of its regex begins with, so the scan may begin where the first ``start``
occurs; masking that way finds exactly what a scan of the whole text finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from aw_action.security.untrusted_text.secret_shapes import (
    TOKEN_SHAPES,
    TOKENS,
    URL_PASSWORD,
    mask_shapes,
    shaped_secrets,
)

FRAGMENTS = [
    "ghp_" + "a" * 36,
    "github_pat_" + "B1_" * 10,
    "sk-ant-" + "x" * 20,
    "sk-" + "y" * 24,
    "task-" + "z" * 24,  # "sk-" inside a word: no token
    "xoxb-" + "1" * 12,
    "hooks.slack.com/services/T000/B000/" + "c" * 16,
    "AKIA" + "A1B2" * 4,
    "npm_" + "n" * 32,
    "https://user:hunter2@example.com/x",
    "https://example.com/no-password",
    "x",
    " ",
    "\n",
    "-",
    "_",
    "é",
    "0123456789",
]


def whole_text_mask(text: str, mask: str) -> str:
    """What masking did before the scan began at the first ``start``: both regexes over all of it."""
    text = TOKENS.sub(mask, text)
    return URL_PASSWORD.sub(lambda m: m.group("head") + mask, text)


def test_each_regex_begins_with_its_start() -> None:
    for what, start, regex in TOKEN_SHAPES:
        assert regex.removeprefix(r"\b").startswith(start), what
        assert re.compile(start).pattern == start


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12))
def test_masking_from_the_first_start_finds_what_a_whole_scan_finds(parts: list[str]) -> None:
    text = "".join(parts)
    assert mask_shapes(text, "***") == whole_text_mask(text, "***")
    expected = [m.group(0) for m in TOKENS.finditer(text)] + [m.group("password") for m in URL_PASSWORD.finditer(text)]
    assert shaped_secrets(text) == expected


def test_a_word_before_the_first_start_still_counts() -> None:
    """The scan begins at the first ``start`` without cutting the text there: ``xsk-...`` is no
    token (no word boundary before ``sk-``), ``a sk-...`` is one."""
    key = "sk-" + "k" * 24
    assert mask_shapes("x" + key, "***") == "x" + key
    assert mask_shapes("a " + key, "***") == "a ***"
    assert mask_shapes("", "***") == ""
    big = "1234567\n" * 100_000
    assert mask_shapes(big, "***") is big  # nothing to mask: the same text back
