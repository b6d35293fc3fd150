"""Field rules shared by every path a safe output takes: the agent's tool, the bash CLI and the
apply job (which re-checks records it did not write itself).

Each checker returns the normalised value or raises ``FieldError`` whose message starts with the
field's name, so the agent (or the person reading the apply log) sees which field to fix.
Limits follow GitHub's own: titles 256 characters, label names 50, bodies 65,536 (a record keeps
``BODY_MAX_CHARS`` so the apply job has room for its footer).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from aw_action.security.untrusted_text.public_text import name_problem

TITLE_MAX_CHARS = 256
BODY_MAX_CHARS = 60_000
MESSAGE_MAX_CHARS = 4_096
LABEL_MAX_CHARS = 50
LABELS_PER_ITEM_MAX = 20
ITEM_NUMBER_MAX = 2**31 - 1
BRANCH_MAX_CHARS = 100

_BRANCH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")


class FieldError(ValueError):
    """A field the agent (or a hand-written record) got wrong; the message names the field."""


def _is_surrogate(char: str) -> bool:
    return 0xD800 <= ord(char) <= 0xDFFF


def _control(char: str) -> bool:
    return unicodedata.category(char) == "Cc"


def text(value: Any, field: str, *, max_chars: int, single_line: bool = False, required: bool = True) -> str:
    """A string: no lone surrogates (invalid Unicode GitHub would reject), no NUL; a single-line
    field (title, message) has no control characters at all. Stripped; empty is an error when
    required. Too long is an error, never a silent cut: the agent should shorten it itself."""
    if not isinstance(value, str):
        raise FieldError(f"{field}: must be a string, got {type(value).__name__}")
    if any(_is_surrogate(c) for c in value):
        raise FieldError(f"{field}: contains invalid Unicode (a lone surrogate)")
    if "\x00" in value:
        raise FieldError(f"{field}: contains a NUL character")
    if single_line and any(_control(c) for c in value):
        raise FieldError(f"{field}: must be one line without control characters")
    stripped: str = value.strip()
    if required and not stripped:
        raise FieldError(f"{field}: must not be empty")
    if len(stripped) > max_chars:
        raise FieldError(f"{field}: {len(stripped):,} characters, over the limit of {max_chars:,}; shorten it")
    return stripped


def label(value: Any, field: str) -> str:
    """A label name as GitHub stores it. A leading ``-`` (a removal in some tools), a comma (a
        separator in comma-joined label lists) and any character nobody sees or that reorders the text
    (``public_text.name_problem``: controls, zero-width, bidi, line separators) are refused."""
    name = text(value, field, max_chars=LABEL_MAX_CHARS, single_line=True)
    hidden = name_problem(name)
    if hidden is not None:
        raise FieldError(f"{field}: {name!r} {hidden}")
    if name.startswith("-"):
        raise FieldError(f"{field}: {name!r} starts with '-'")
    if "," in name:
        raise FieldError(f"{field}: {name!r} contains a comma")
    return name


def labels(value: Any, field: str, allowed: Iterable[str] | None = None) -> list[str]:
    """A list of label names, de-duplicated ignoring case (GitHub's rule). With ``allowed`` set,
    each must be one of them (ignoring case) and takes the allowed spelling."""
    if not isinstance(value, list):
        raise FieldError(f"{field}: must be a list of label names")
    if len(value) > LABELS_PER_ITEM_MAX:
        raise FieldError(f"{field}: {len(value)} labels, over the limit of {LABELS_PER_ITEM_MAX}")
    permitted = {a.lower(): a for a in allowed} if allowed is not None else None
    out: dict[str, str] = {}
    for i, item in enumerate(value):
        name = label(item, f"{field}[{i}]")
        if permitted is not None:
            if name.lower() not in permitted:
                choices = ", ".join(sorted(permitted.values())) or "(none)"
                raise FieldError(f"{field}: label {name!r} is not allowed (allowed: {choices})")
            name = permitted[name.lower()]
        out.setdefault(name.lower(), name)
    return list(out.values())


def item_number(value: Any, field: str) -> int:
    """An issue or pull request number: a positive integer, or a string of digits (gh-aw's tool
    schema allows both). Booleans, fractions, NaN and infinities are refused."""
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and (digits := value.strip().lstrip("#")).isascii() and digits.isdigit():
        number = int(digits) if len(digits) <= len(str(ITEM_NUMBER_MAX)) else None  # int() refuses 4,300+ digits
    if number is None or not 1 <= number <= ITEM_NUMBER_MAX:
        raise FieldError(f"{field}: must be a positive issue or pull request number, got {value!r}")
    return number


def boolean(value: Any, field: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise FieldError(f"{field}: must be true or false, got {value!r}")


def branch(value: Any, field: str) -> str:
    """A branch name the agent proposes: ASCII letters, digits and ``._/-``, no ``..``, no
    ``//``, no trailing ``/``, ``.`` or ``.lock`` (a subset of git's ref-name rules)."""
    name = text(value, field, max_chars=BRANCH_MAX_CHARS, single_line=True)
    bad = not _BRANCH.match(name) or ".." in name or "//" in name or name.endswith(("/", ".", ".lock")) or "/." in name
    if bad:
        raise FieldError(f"{field}: {name!r} is not a valid branch name (letters, digits and . _ / - only)")
    return name
