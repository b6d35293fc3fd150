"""Checks of the little programs some tools take as an argument: a jq filter, a sed script, an awk
program. Each is read far enough to find the constructs that reach the environment, run
commands or write files; whatever cannot be read with certainty is refused (fail closed).

Where the tool's own lexer is not known exactly (GNU sed and mawk/gawk read a ``/`` inside a
bracket expression ``[/]`` as part of the regular expression; whether a backslash escapes inside
brackets varies), the text is read in every plausible way and must be safe in all of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_JQ_VARIABLES = {
    "ENV": "reads the environment (and the run's tokens)",
    "__loc__": "reveals the program's location",
    "__prog_args": "reads the command line",
}
_JQ_FUNCTIONS = {
    "env": "reads the environment (and the run's tokens)",
    "input_filename": "reveals input file names",
    "get_search_list": "reveals module paths",
    "get_prog_origin": "reveals the program's path",
    "get_jq_origin": "reveals jq's path",
    "import": "loads jq code or data from a file the policy cannot check",
    "include": "loads jq code from a file the policy cannot check",
    "modulemeta": "reads module files",
}
_JQ_NAMES = re.compile(r"\$[ \t\n]*([A-Za-z_][A-Za-z0-9_]*)|(?<![.A-Za-z0-9_$])([A-Za-z_][A-Za-z0-9_]*)")


def jq_program_reason(program: str) -> str | None:
    """Refuse a jq filter that reaches the environment (``$ENV``, ``env``, also jq 1.6's
    ``$ ENV``: its lexer reads ``$`` and the name as two tokens) or loads code from files.
    String literals are skipped but their ``\\(...)`` interpolations are code."""
    code = _jq_code(program)
    if code is None:
        return "jq program the policy could not read (unbalanced brackets or string)"
    for match in _JQ_NAMES.finditer(code):
        variable, name = match.group(1), match.group(2)
        if variable in _JQ_VARIABLES:
            return f"jq program uses ${variable}, which {_JQ_VARIABLES[variable]}"
        if name in _JQ_FUNCTIONS:
            return f"jq program uses {name}, which {_JQ_FUNCTIONS[name]}"
    return None


def _jq_code(program: str) -> str | None:
    """``program`` with string literal text blanked, interpolations kept; ``None`` if jq's lexer
    (``lexer.l``: nested ``( [ {`` states, ``\\(`` inside strings) would not balance it."""
    closing = {"(": ")", "[": "]", "{": "}", "interpolation": ")"}
    out: list[str] = []
    stack: list[str] = []
    in_string = False
    i = 0
    while i < len(program):
        ch = program[i]
        if in_string and ch == "\\":
            if program[i + 1 : i + 2] == "(":
                stack.append("interpolation")
                in_string = False
            out.append("  ")
            i += 2
            continue
        if in_string:
            in_string = ch != '"'
            out.append(ch if ch == '"' else " ")
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif ch in "([{":
            stack.append(ch)
            out.append(ch)
        elif ch in ")]}":
            if not stack or closing[stack[-1]] != ch:
                return None
            in_string = stack.pop() == "interpolation"
            out.append(" " if in_string else ch)
        else:
            out.append(ch)
        i += 1
    return None if in_string or stack else "".join(out)


# ---- sed ------------------------------------------------------------------------------------

_SED_REFUSED = {
    "e": "runs a command",
    "w": "writes a file",
    "W": "writes a file",
    "r": "reads a file the path check cannot see",
    "R": "reads a file the path check cannot see",
}
_SED_SIMPLE = set("=dDgGhHnNpPxzF{}") | {"l", "q", "Q", "L"}
_SED_FLAGS = set("gpiImM0123456789")


class _Unreadable(ValueError):
    pass


def sed_script_reason(script: str) -> str | None:
    """Refuse a GNU sed script with ``e``, ``w``/``W``, ``r``/``R`` commands or ``s///e``,
    ``s///w``, or one the policy cannot read (an unknown command)."""
    for brackets in ("posix", "posix-escapes", "none"):
        try:
            reason = _sed_commands(script, brackets)
        except _Unreadable as exc:
            return f"sed script the policy could not read ({exc})"
        if reason:
            return reason
    return None


def _delimited(text: str, start: int, delimiter: str, brackets: str) -> int:
    """Index just after the regex or replacement starting at ``start`` and ended by ``delimiter``."""
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == delimiter:
            return i + 1
        if ch == "[" and brackets != "none":
            i = _bracket_end(text, i, brackets == "posix-escapes")
            continue
        i += 1
    raise _Unreadable(f"unterminated {delimiter!r}-delimited text")


def _bracket_end(text: str, start: int, escapes: bool) -> int:
    i = start + 1
    if text[i : i + 1] == "^":
        i += 1
    if text[i : i + 1] == "]":
        i += 1
    while i < len(text):
        if escapes and text[i] == "\\":
            i += 2
            continue
        if text[i] == "[" and text[i + 1 : i + 2] in (":", ".", "="):
            close = text.find(text[i + 1] + "]", i + 2)
            i = len(text) if close < 0 else close + 2
            continue
        if text[i] == "]":
            return i + 1
        i += 1
    raise _Unreadable("unterminated bracket expression")


def _sed_commands(script: str, brackets: str) -> str | None:
    i, n = 0, len(script)
    while True:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n or script[i] == "#":
            return None
        i = _sed_address(script, i, brackets)
        command = script[i : i + 1]
        i += 1
        if command in _SED_REFUSED:
            return f"sed command {command!r} {_SED_REFUSED[command]}"
        if command and command in "aic":
            return None
        if command in ("s", "y"):
            if i >= n or script[i] in "\\\n":
                raise _Unreadable(f"{command} without a delimiter")
            end = _delimited(script, i + 1, script[i], brackets if command == "s" else "none")
            i = _delimited(script, end, script[i], "none")
            while command == "s" and i < n and script[i] not in " \t\n;}#":
                if script[i] in "ew":
                    return f"sed s///{script[i]} {_SED_REFUSED[script[i]]}"
                if script[i] not in _SED_FLAGS:
                    raise _Unreadable(f"unknown s flag {script[i]!r}")
                i += 1
        elif command in ("b", "t", "T", ":", "v"):
            while i < n and script[i] not in ";\n":
                i += 1
        elif command in _SED_SIMPLE:
            while i < n and script[i] in " \t0123456789":
                i += 1
        else:
            raise _Unreadable(f"unknown command {command!r}")


def _sed_address(script: str, i: int, brackets: str) -> int:
    for _ in range(2):
        if script[i : i + 1] in ("/", "\\"):
            delimiter_at = i + 1 if script[i] == "\\" else i
            if delimiter_at >= len(script):
                raise _Unreadable("address without a delimiter")
            i = _delimited(script, delimiter_at + 1, script[delimiter_at], brackets)
            while script[i : i + 1] in ("I", "M"):
                i += 1
        else:
            while i < len(script) and (script[i].isdigit() or script[i] in "$~+"):
                i += 1
        while script[i : i + 1] in (" ", "\t"):
            i += 1
        if script[i : i + 1] != ",":
            break
        i += 1
    while script[i : i + 1] in (" ", "\t", "!"):
        i += 1
    return i


# ---- awk ------------------------------------------------------------------------------------

_AWK_NAMES = {
    "system": "runs a command",
    "getline": "reads files or command output",
    "ENVIRON": "reads the environment (and the run's tokens)",
    "PROCINFO": "reads process information",
    "ARGV": "can make awk read other files than the ones named",
    "ARGC": "can make awk read other files than the ones named",
}
_AWK_OPERAND_END = re.compile(r"(?:[A-Za-z0-9_)\]\"$]|\+\+|--)\Z")


def awk_program_reason(program: str) -> str | None:
    """Refuse an awk program that runs commands (``system``, ``|``), reads the environment
    (``ENVIRON``) or other files (``getline``), writes files (``print > file``) or uses gawk's
    ``@`` (``@load``, indirect calls)."""
    for brackets in (True, False):
        code = _awk_code(program, brackets)
        if code is None:
            return "awk program the policy could not read (unterminated string or regex)"
        reason = _awk_reason(code)
        if reason:
            return reason
    return None


def _awk_code(program: str, brackets: bool) -> str | None:
    """``program`` with strings and regex literals blanked. A ``/`` starts a regex only after an
    operator (never after an operand, where awk divides), so a misreading blanks less, not more."""
    out: list[str] = []
    tail = ""
    i = 0
    while i < len(program):
        ch = program[i]
        if ch == '"' or (ch == "/" and not _AWK_OPERAND_END.search(tail)):
            end = _awk_literal_end(program, i, brackets and ch == "/")
            if end is None:
                return None
            out.append(ch + " " * (end - i - 2) + ch)
            tail = (tail + ch)[-2:]
            i = end
            continue
        out.append(ch)
        if not ch.isspace():
            tail = (tail + ch)[-2:]
        i += 1
    return "".join(out)


def _awk_literal_end(text: str, start: int, brackets: bool) -> int | None:
    try:
        if brackets:
            return _delimited(text, start + 1, text[start], "posix")
        return _delimited(text, start + 1, text[start], "none")
    except _Unreadable:
        return None


def _awk_reason(code: str) -> str | None:
    for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code):
        if name in _AWK_NAMES:
            return f"awk program uses {name}, which {_AWK_NAMES[name]}"
    if "@" in code:
        return "awk program uses @ (gawk @load, @include, indirect calls)"
    if re.search(r"(?<!\|)\|(?!\|)", code):
        return "awk program uses |, which runs a command"
    return _awk_redirection(code)


def _awk_redirection(code: str) -> str | None:
    """``>`` at the statement's own parenthesis depth inside ``print``/``printf`` is output to a
    file (POSIX awk: a comparison there must be parenthesised)."""
    depth, print_depth = 0, None
    for token in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*|>=|>>|[()>;{}\n]", code):
        text = token.group()
        if text in ("print", "printf"):
            print_depth = depth
        elif text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
        elif text in (";", "{", "}", "\n"):
            print_depth = None
        elif text in (">", ">>") and print_depth is not None and depth <= print_depth:
            return f"awk program uses print {text}, which writes a file"
    return None


PROGRAM_CHECKS: dict[str, Callable[[str], str | None]] = {
    "jq": jq_program_reason,
    "sed": sed_script_reason,
    "awk": awk_program_reason,
}
