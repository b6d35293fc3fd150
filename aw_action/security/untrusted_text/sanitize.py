"""Strip from strangers' text what a reader on GitHub cannot see but a model would read.

``sanitize(text)`` applies, in this order (each step's count is reported in ``removed``):
1. ``entities``: numeric HTML entities become their character when it is printable ASCII and
   disappear otherwise (``&#8203;`` is a zero-width space in disguise); NFC normalisation;
2. ``ansi``: terminal escape sequences (colours, ``ESC[8m`` concealed text, OSC 8 hyperlinks
   whose target differs from the text);
3. ``invisible``: control characters (except tab and newline; CR and U+2028/2029 become
   newlines), zero-width characters, soft hyphen, combining grapheme joiner, every bidirectional
   control (LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI, LRM/RLM/ALM: Trojan Source), word joiner and
   invisible operators, deprecated format characters, variation selectors (data can be
   smuggled in them after an emoji), interlinear annotations, BOM, and the tag block
   U+E0000-E007F (invisible ASCII); lone surrogates become U+FFFD. Visible blanks (Hangul
   fillers, braille blank) and meaningful format characters (Arabic number signs) stay;
4. ``comments``: HTML comments, and an unclosed ``<!--`` with everything after it (GitHub
   hides it too); ``<script>``, ``<style>``, ``<template>``, ``<noscript>`` elements;
5. ``markdown``: image alt text (``![hidden](x.png)`` -> ``![](x.png)``), link titles
   (``[t](u "hidden")``), link reference definitions (invisible when rendered: dropped unless
   the text refers to them, then kept without title; ``[//]: # (hidden)`` goes), hiding
   attributes inside HTML tags (``alt``, ``title``, ``aria-*``, ``data-*``, ``placeholder``),
   and ``<details>``/``<summary>`` tags (their content stays, unfolded);
6. ``tokens``: GitHub token shapes (``ghp_``, ``gho_``, ``ghs_``, ``ghr_``, ``ghu_``,
   ``github_pat_``) become ``[REDACTED_GITHUB_TOKEN]``.
Ported from and checked against claude-code-action's ``src/github/utils/sanitizer.ts`` and
gh-aw's ``sanitize_content_core.cjs``; differences: bidi *marks* (LRM/RLM/ALM) are removed too,
and unreferenced link definitions and unclosed comments are handled.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import field

from aw_action.lazy_dataclass import dataclass

_ENTITY = re.compile(r"&#(?:([0-9]{1,7})|[xX]([0-9a-fA-F]{1,6}));")
_ANSI = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u061c\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\ufe00-\ufe0f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_COMMENT = re.compile(r"<!--[\s\S]*?(?:-->|$)")
_HIDDEN_ELEMENT = re.compile(r"<(script|style|template|noscript)\b[^>]*>[\s\S]*?(?:</\1\s*>|$)", re.IGNORECASE)
_IMAGE_ALT = re.compile(r"!\[[^\]]+\](?=[(\[])")
_LINK_TITLE = re.compile(r"(\]\(\s*(?:<[^>]*>|[^\s)]+))\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\))\s*\)")
_TITLE = r"(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))"
_REF_DEF = re.compile(
    r"^ {0,3}\[([^\]]+)\]:[ \t]*\n?[ \t]*(<[^>\n]*>|\S+)"
    rf"(?:(?:[ \t]*\n[ \t]*|[ \t]+){_TITLE})?[ \t]*$\n?",
    re.MULTILINE,
)
"""A link reference definition (invisible when rendered): its destination may stand on the next
line and its title on the next line or over several (CommonMark), which hides text as well."""
_TAG = re.compile(r"<[A-Za-z][A-Za-z0-9-]*(?:\s+[^<>]*)?/?>")
_HIDING_ATTR = re.compile(
    r"\s+(?:alt|title|placeholder|aria-[A-Za-z-]+|data-[A-Za-z0-9_.-]+)\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+)",
    re.IGNORECASE,
)
_DETAILS = re.compile(r"</?(?:details|summary)\b[^>]*>", re.IGNORECASE)
_GITHUB_TOKEN = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
)
GITHUB_TOKEN_MASK = "[REDACTED_GITHUB_TOKEN]"


@dataclass(frozen=True)
class Sanitized:
    text: str
    removed: dict[str, int] = field(default_factory=dict)
    """Step name -> how many things it removed or replaced (only steps that did something)."""


def _entity(match: re.Match[str]) -> str:
    code = int(match.group(1)) if match.group(1) else int(match.group(2), 16)
    return chr(code) if 32 <= code <= 126 else ""


def strip_invisible(text: str) -> tuple[str, int]:
    """Step 3's characters removed (C0 and C1 controls but tab and newline, zero-width and bidi
    characters, variation selectors, the tag block, ...); the text and how many went."""
    return _INVISIBLE.subn("", text)


def strip_reference_definitions(text: str) -> tuple[str, int]:
    """Link reference definitions nothing refers to removed (they render as nothing, so they can
    hide text: ``[//]: # (hidden)``); a referenced one keeps its destination, not its title."""
    removed = 0

    def keep_or_drop(match: re.Match[str]) -> str:
        nonlocal removed
        label = re.escape(match.group(1).strip())
        rest = text[: match.start()] + text[match.end() :]
        if re.search(rf"\]\[{label}\]|\[{label}\](?![:(])", rest, re.IGNORECASE):
            kept = f"[{match.group(1)}]: {match.group(2)}" + ("\n" if match.group(0).endswith("\n") else "")
            removed += kept != match.group(0)
            return kept
        removed += 1
        return ""

    return _REF_DEF.sub(keep_or_drop, text), removed


def _strip_attributes(text: str) -> tuple[str, int]:
    count = 0

    def clean(match: re.Match[str]) -> str:
        nonlocal count
        tag, n = _HIDING_ATTR.subn("", match.group(0))
        count += n
        return tag

    return _TAG.sub(clean, text), count


def sanitize(text: str) -> Sanitized:
    removed: dict[str, int] = {}

    def step(name: str, result: tuple[str, int]) -> str:
        if result[1]:
            removed[name] = removed.get(name, 0) + result[1]
        return result[0]

    text = step("entities", _ENTITY.subn(_entity, text))
    text = unicodedata.normalize("NFC", step("invisible", _SURROGATE.subn("\ufffd", text)))
    text = step("ansi", _ANSI.subn("", text))
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n\n")
    text = step("invisible", strip_invisible(text))
    text = step("comments", _COMMENT.subn("", text))
    text = step("comments", _HIDDEN_ELEMENT.subn("", text))
    text = step("markdown", _IMAGE_ALT.subn("![]", text))
    text = step("markdown", _LINK_TITLE.subn(r"\1)", text))
    text = step("markdown", strip_reference_definitions(text))
    text = step("markdown", _strip_attributes(text))
    text = step("markdown", _DETAILS.subn("", text))
    text = step("tokens", _GITHUB_TOKEN.subn(GITHUB_TOKEN_MASK, text))
    return Sanitized(text, removed)
