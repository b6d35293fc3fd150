"""Turn one shell command into its argument vector, or say why it cannot be restricted safely.

The restricted bash modes only ever run *one simple command with literal words*. This module
proves a command has that shape with a real bash grammar (tree-sitter-bash), never with regular
expressions over the text:

- the input is screened first: no newline, carriage return, NUL or other control character, no
  invisible Unicode format character (bidi overrides, zero-width spaces) and no non-ASCII space,
  so nothing hides from a human reading the command;
- the parse tree must be exactly ``program → command`` with a command name and arguments, each
  argument a plain word, a number, a ``'single-quoted'`` string, a ``"double-quoted"`` string
  without ``$``, backquote or backslash, or a concatenation of those;
- every byte of the input must belong to one of those nodes (only spaces and tabs between them),
  so grammar "extras" such as a backslash-newline continuation cannot hide text;
- unquoted words may not contain characters bash would treat specially (globs, braces, tilde,
  backslash escapes, ``$``, redirections, ``!``);
- the argument vector built from the tree must equal what POSIX ``shlex`` makes of the text: two
  independent tokenisers agree, or the command is rejected.

Any parse error, missing node or unexpected node is a rejection (fail closed).
"""

from __future__ import annotations

import shlex
import unicodedata
from collections.abc import Mapping
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

MAX_COMMAND_CHARS = 16_384

_UNQUOTED_SPECIAL = set("*?[]{}\\$`()<>|&;!#\"'")
"""Characters that make an unquoted word more than a literal (glob and brace expansion, escapes,
expansions, operators, history/negation, comments). ``~`` is special only where bash expands it:
at the start of a word and after ``=`` or ``:`` (``HEAD~1`` is literal)."""

_NODE_NAMES = {
    "command_substitution": "command substitution",
    "process_substitution": "process substitution",
    "simple_expansion": "parameter expansion",
    "expansion": "parameter expansion",
    "arithmetic_expansion": "arithmetic expansion",
    "ansi_c_string": "ANSI-C quoting ($'...')",
    "translated_string": 'locale quoting ($"...")',
    "brace_expression": "brace expansion",
    "variable_assignment": "environment assignment",
    "redirected_statement": "redirection",
    "file_redirect": "redirection",
    "heredoc_redirect": "here-document",
    "herestring_redirect": "here-string",
    "pipeline": "pipe",
    "list": "command list (&&, ||)",
    "subshell": "subshell",
    "compound_statement": "command group",
    "negated_command": "negation (!)",
    "comment": "comment",
    "function_definition": "function definition",
    "declaration_command": "declaration",
    "unset_command": "unset",
    "test_command": "test expression",
}


class CommandRejected(ValueError):
    """The command is not one simple command of literal words; the message says why."""


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def _screen(command: str) -> None:
    if not command.strip():
        raise CommandRejected("empty command")
    if len(command) > MAX_COMMAND_CHARS:
        raise CommandRejected(f"command longer than {MAX_COMMAND_CHARS} characters")
    for ch in command:
        if ch in "\n\r":
            raise CommandRejected("newline in command (one command per call)")
        category = unicodedata.category(ch)
        if ch != "\t" and category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            raise CommandRejected(f"control or invisible character U+{ord(ch):04X} in command")
        if category == "Zs" and ch != " ":
            raise CommandRejected(f"non-ASCII space U+{ord(ch):04X} in command")


def _describe(node: tree_sitter.Node) -> str:
    if node.type in _NODE_NAMES:
        return _NODE_NAMES[node.type]
    if not node.is_named:
        return f"shell operator {node.type!r}"
    return f"shell construct '{node.type}'"


def _text(source: bytes, node: tree_sitter.Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8")


def _check_gaps(source: bytes, start: int, end: int, children: list[tree_sitter.Node]) -> None:
    """Only spaces and tabs may lie between ``children`` inside ``[start, end)``."""
    cursor = start
    for child in [*children, None]:
        stop = end if child is None else child.start_byte
        if source[cursor:stop].strip(b" \t"):
            raise CommandRejected("text the parser did not account for (line continuation?)")
        if child is not None:
            cursor = child.end_byte


def _literal_word(text: str) -> str:
    bad = sorted(set(text) & _UNQUOTED_SPECIAL)
    if bad:
        raise CommandRejected(f"unquoted special character {bad[0]!r} in {text!r} (quote it or drop it)")
    if text.startswith("~") or "=~" in text or ":~" in text:
        raise CommandRejected(f"unquoted '~' in {text!r} would expand to a home directory (quote it)")
    return text


def _expansion_name(node: tree_sitter.Node, source: bytes) -> str | None:
    """``NAME`` of a plain ``$NAME`` or ``${NAME}``; ``None`` for any other expansion."""
    kinds = [child.type for child in node.children]
    if node.type == "simple_expansion" and kinds == ["$", "variable_name"]:
        return _text(source, node.children[1])
    if node.type == "expansion" and kinds == ["${", "variable_name", "}"]:
        return _text(source, node.children[1])
    return None


def _string_value(source: bytes, node: tree_sitter.Node, variables: Mapping[str, str]) -> tuple[str, str]:
    """A double-quoted string as (value, literal text): literal content, plus ``$NAME`` or
    ``${NAME}`` of the allowed ``variables`` (their values; no other ``$``, no backquote or
    backslash)."""
    values, raws = [], []
    for child in node.children:
        if child.type == '"':
            continue
        raw = _text(source, child)
        if child.type == "string_content":
            for ch in "$`\\":
                if ch in raw:
                    raise CommandRejected(f"{ch!r} inside double quotes (use single quotes for a literal)")
            values.append(raw)
        elif child.type in ("simple_expansion", "expansion"):
            name = _expansion_name(child, source)
            if name is None or name not in variables:
                allowed = f" (allowed: {', '.join(sorted(variables))})" if variables else ""
                raise CommandRejected(f"parameter expansion {raw} inside double quotes{allowed}")
            values.append(variables[name])
        else:
            raise CommandRejected(f"{_describe(child)} inside double quotes")
        raws.append(raw)
    literal = "".join(raws)
    if f'"{literal}"' != _text(source, node):
        raise CommandRejected("double-quoted string the parser did not fully account for")
    return "".join(values), literal


def _argument(source: bytes, node: tree_sitter.Node, variables: Mapping[str, str]) -> tuple[str, str]:
    """An argument as (value, literal text with quotes removed but expansions kept)."""
    if node.type in ("word", "number"):
        word = _literal_word(_text(source, node))
        return word, word
    if node.type == "raw_string":
        text = _text(source, node)[1:-1]
        return text, text
    if node.type == "string":
        return _string_value(source, node, variables)
    if node.type == "concatenation":
        cursor = node.start_byte
        for child in node.children:
            if child.start_byte != cursor:
                raise CommandRejected("gap inside a concatenated word")
            cursor = child.end_byte
        if cursor != node.end_byte:
            raise CommandRejected("gap inside a concatenated word")
        pieces = [_argument(source, child, variables) for child in node.children]
        return "".join(v for v, _ in pieces), "".join(r for _, r in pieces)
    raise CommandRejected(f"{_describe(node)} is not allowed")


def parse_argv(command: str, variables: Mapping[str, str] | None = None) -> list[str]:
    """The literal argument vector of ``command``; ``CommandRejected`` if it is anything more
    than one simple command of literal words (see the module docstring).

    ``variables`` opts in to ``"$NAME"`` / ``"${NAME}"`` inside double quotes (never unquoted,
    never in the command name) for those names; the argv then holds their values, which must be
    the values the command will run with. Never pass secrets: a command could send them away."""
    allowed = dict(variables or {})
    _screen(command)
    source = command.encode("utf-8")
    root = _parser().parse(source).root_node
    if root.has_error:
        raise CommandRejected("the shell parser could not parse the command (unbalanced quote?)")
    children = list(root.children)
    if len(children) != 1:
        extra = next((c for c in children if c.type != "command"), children[-1] if children else root)
        raise CommandRejected(f"{_describe(extra)}: only one simple command is allowed")
    command_node = children[0]
    if command_node.type != "command":
        raise CommandRejected(f"{_describe(command_node)} is not allowed")
    _check_gaps(source, 0, len(source), [command_node])
    parts = list(command_node.children)
    _check_gaps(source, command_node.start_byte, command_node.end_byte, parts)
    if not parts or parts[0].type != "command_name":
        first = parts[0] if parts else command_node
        raise CommandRejected(f"{_describe(first)} before the command name")
    name_children = list(parts[0].children)
    if len(name_children) != 1:
        raise CommandRejected("command name the parser did not fully account for")
    words = [_argument(source, name_children[0], {})]
    words += [_argument(source, node, allowed) for node in parts[1:]]
    try:
        independent = shlex.split(command, posix=True)
    except ValueError as exc:
        raise CommandRejected(f"the command does not tokenize cleanly: {exc}") from None
    if independent != [literal for _, literal in words]:
        raise CommandRejected("ambiguous command: two tokenizers disagree on its words")
    return [value for value, _ in words]
