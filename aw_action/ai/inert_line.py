"""The one escaping of foreign text on a line a person reads: the step log, the terminal, the
replay's report (docs/security.md, "Lines people read").

Foreign text is whatever the harness did not write: a tool name or arguments the model invented,
a tool's output, an error message quoting either, a recorded run's content. On a line it can
forge what the line's reader trusts: a new line (a forged JSONL record, a forged per-turn line), a
workflow command (the runner acts on a line that starts with ``::``, leading blanks ignored, and
on ``##[`` anywhere in it), a terminal escape sequence (clipboard writes, hidden links, a cleared
screen), a bidirectional override or an invisible character (text that reads otherwise than it
is). ``one_line`` makes it inert:

- every character ``str.isprintable`` refuses (C0 and C1 controls, DEL, line and paragraph
  separators, the format characters: bidi controls, zero-width characters, the tag block)
  becomes its backslash escape (``\\n``, ``\\x1b``, ``\\u202e``); lone surrogates become U+FFFD;
- a leading ``::`` (after blanks) becomes ``\\x3a:``, and every ``##[`` becomes ``#\\x23[``.

Idempotent, and the identity on the harness's own plain lines. ``tool_label`` is a tool name as
shown: a name of the shape providers accept (``[A-Za-z0-9_-]{1,64}``) as it is, any other in
quotes, escaped, so an invented name never reads as a registered tool's. ``inert_json`` is the
same for a serialised JSONL record: the characters JSON leaves raw (``ensure_ascii=False``) that a
terminal or the runner would act on become ``\\uXXXX`` escapes, the same value once decoded.
"""

from __future__ import annotations

import re

from aw_action.ai.text import clean_text

TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_JSON_UNSAFE = re.compile(r"##\[|[^\x20-\x7e]")


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape").decode("ascii")


def one_line(text: str) -> str:
    """``text`` as one inert printable line (see the module docstring)."""
    cleaned = clean_text(text)
    if not cleaned.isprintable():
        cleaned = "".join(ch if ch.isprintable() else _escape(ch) for ch in cleaned)
    body = cleaned.lstrip(" ")
    if body.startswith("::"):
        cleaned = cleaned[: len(cleaned) - len(body)] + "\\x3a" + body[1:]
    return cleaned.replace("##[", "#\\x23[")


def tool_label(name: str) -> str:
    """A tool name as a line shows it: as it is when it has a tool name's shape, else quoted and
    escaped (``"bash\\n::error::x"``)."""
    if TOOL_NAME.fullmatch(name):
        return name
    return '"' + one_line(name).replace('"', '\\"') + '"'


def _json_escape(match: re.Match[str]) -> str:
    found = match.group(0)
    if found == "##[":
        return "##\\u005b"
    if found.isprintable():
        return found
    code = ord(found)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def inert_json(line: str) -> str:
    """A serialised JSON value with the characters a reader would act on escaped (JSON's own
    ``\\u`` escapes: the value it decodes to is unchanged). Only valid for JSON text: outside a
    string none of these characters can occur."""
    return _JSON_UNSAFE.sub(_json_escape, line)
