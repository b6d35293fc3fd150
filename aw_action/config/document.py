"""config.json as a document: read, checked for typos, validated into ``RunConfig``, fixed.

Every failure raises ``InvocationError`` with one line that names the document and, for schema
violations, the field path (``harness.budget.max-effective-tokens: ...``): ``ConfigError``, which
also carries the path, so an entry point can name its own input instead.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from aw_action.environment.strict_json import parse_json
from aw_action.exits import InvocationError, Setting, SettingKind
from aw_action.mcp.config import from_claude
from aw_action.run.config import RunConfig
from aw_action.run.input_files import read_json_file

NEAR_MISS_CUTOFF = 0.8
"""How alike (difflib's ratio) an unknown key must be to a known one to count as its typo:
``timeout-minute`` (0.97) and ``harnes`` (0.92) are typos; gh-aw's own frontmatter keys that
the harness ignores (``on``, ``permissions``, ``roles``, ``network``, ``env``) are not."""


class ConfigError(InvocationError):
    """A setting the run cannot use. ``reason`` is the line after the document's name
    (``field: message``), ``field`` the config path at fault (as in config.json) and ``source``
    the override that set it (an action input, ``--model``), when one did."""

    def __init__(self, where: str, reason: str, field: tuple[str, ...] = (), source: str | None = None) -> None:
        super().__init__(f"{where}: {reason}" if where else reason, _setting(field, source))
        self.reason = reason
        self.field = field
        self.source = source


def _setting(field: tuple[str, ...], source: str | None) -> Setting | None:
    """The override that set the field (an input, ``--model``, ``AW_HARNESS_MODEL``), else the
    config key."""
    if source:
        kind: SettingKind = "argument" if source.startswith("-") else "variable" if source.isupper() else "input"
        return Setting(source, kind)
    return Setting(".".join(field), "config") if field else None


def read_document(path: Path, where: str) -> dict[str, Any]:
    """The JSON object in ``path``; ``ConfigError`` naming the file."""
    try:
        data = read_json_file(path, "config file")
    except InvocationError as exc:
        raise ConfigError("", str(exc)) from None
    if not isinstance(data, dict):
        raise ConfigError(where, "expected a JSON object at the top level")
    return data


def mcp_config_servers(value: str, file: Callable[[str], Path], what: str) -> dict[str, dict[str, Any]]:
    """The Claude-style ``{"mcpServers": {...}}`` document ``value`` is (inline JSON, starting with
    ``{``) or names (a file, found by ``file``), as ``mcp-servers`` entries
    (``mcp/config.from_claude``); ``ValueError`` or ``InvocationError`` with the reason."""
    text = value.strip()
    document = parse_json(text) if text.startswith("{") else read_json_file(file(text), f"{what} file")
    return from_claude(document, what)


def _field_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(root)"


def describe_validation_error(exc: ValidationError) -> str:
    """One line: the first error's field path and message (plus a count of the others)."""
    errors = exc.errors()
    first = errors[0]
    loc = tuple(p for p in first["loc"] if p not in ("ImportEntry", "str"))
    msg = first["msg"]
    if first["type"] == "extra_forbidden":
        msg = "unknown key (not a harness setting)"
        likely = _likely_key(str(loc[-1]), _keys_at(loc[:-1])) if loc else None
        if likely:
            msg += f"; did you mean {likely!r}?"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{_field_path(loc)}: {msg}{more}"


def _keys_at(path: tuple[int | str, ...]) -> list[str]:
    """The keys config.json accepts at ``path`` (an object's fields, by their kebab-case names)."""
    model: Any = RunConfig
    for key in path:
        fields = {(f.alias or name): f for name, f in model.model_fields.items()}
        field = fields.get(str(key))
        annotation = getattr(field, "annotation", None)
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return [f.alias or name for name, f in model.model_fields.items()]


def _likely_key(key: str, known: list[str]) -> str | None:
    match = difflib.get_close_matches(key, known, n=1, cutoff=NEAR_MISS_CUTOFF)
    return match[0] if match else None


def check_top_level_keys(data: dict[str, Any], where: str) -> None:
    """Unknown top-level keys are ignored (the compiler passes frontmatter such as ``on:``),
    unless one is a near miss of a key the harness reads: then it is a typo that would silently
    drop a setting (``timeout-minute`` leaves the run at the default 20 minutes)."""
    known = _keys_at(())
    accepted = {*known, *RunConfig.model_fields}  # snake_case field names validate too
    for key in data:
        if key not in accepted and (likely := _likely_key(str(key), known)):
            raise ConfigError(where, f"unknown key {key!r}; did you mean {likely!r}?")


def validate(data: dict[str, Any], where: str) -> RunConfig:
    """``data`` as ``RunConfig``, or ``ConfigError`` for its first problem."""
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        field = tuple(str(p) for p in exc.errors()[0]["loc"])
        raise ConfigError(where, describe_validation_error(exc), field) from None


def fix_settings(config: RunConfig) -> list[str]:
    """Force the settings spec §6.2 fixes; returns one warning per setting changed."""
    warnings: list[str] = []
    if not config.cli_proxy:
        config.cli_proxy = True
        warnings.append("cli-proxy: false is not supported for engine: aw; overridden to true")
    if config.tools.github.mode != "gh-proxy":
        warnings.append(
            f"tools.github.mode: {config.tools.github.mode} is not supported for engine: aw; overridden to gh-proxy"
        )
        config.tools.github.mode = "gh-proxy"
    return warnings
