"""Loading config.json and prompt.txt, resolving imports, and assembling the first message.

Every failure raises ``InvocationError`` with one line that names the file and, for schema
violations, the field path (``harness.budget.max-effective-tokens: ...``).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from aw_action.exits import InvocationError
from aw_action.run.config import RunConfig
from aw_action.run.input_files import InputFileProblem, read_input_text, read_text_or_problem
from aw_action.run.yaml_hint import yaml_hint


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


NEAR_MISS_CUTOFF = 0.8
"""How alike (difflib's ratio) an unknown key must be to a known one to count as its typo:
``timeout-minute`` (0.97) and ``harnes`` (0.92) are typos; gh-aw's own frontmatter keys that
the harness ignores (``on``, ``permissions``, ``roles``, ``network``, ``env``) are not."""


def check_top_level_keys(data: dict[str, Any], source: str) -> None:
    """Unknown top-level keys are ignored (the compiler passes frontmatter such as ``on:``),
    unless one is a near miss of a key the harness reads: then it is a typo that would silently
    drop a setting (``timeout-minute`` leaves the run at the default 20 minutes)."""
    known = _keys_at(())
    accepted = {*known, *RunConfig.model_fields}  # snake_case field names validate too
    for key in data:
        if key not in accepted and (likely := _likely_key(str(key), known)):
            raise InvocationError(f"{source}: unknown key {key!r}; did you mean {likely!r}?")


def parse_config(data: Any, source: str) -> RunConfig:
    if not isinstance(data, dict):
        raise InvocationError(f"{source}: expected a JSON object at the top level")
    check_top_level_keys(data, source)
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise InvocationError(f"{source}: {describe_validation_error(exc)}") from None


MAX_JSON_DEPTH = 64
"""Deeper nesting is no configuration anyone writes; refusing it keeps every walk bounded."""


def read_json_file(path: Path, what: str) -> Any:
    """The parsed JSON of ``path`` (a regular file, at most 10 MiB, nested at most
    ``MAX_JSON_DEPTH`` deep, no ``NaN``/``Infinity``); ``InvocationError`` naming the file."""
    text = read_input_text(path, what)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InvocationError(
            yaml_hint(text, path, what)
            or f"{what} is not valid JSON: {path}: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except (RecursionError, ValueError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise InvocationError(f"{what} is not usable JSON: {path}: {reason}") from None
    if _depth_over(data, MAX_JSON_DEPTH):
        raise InvocationError(f"{what} is nested deeper than {MAX_JSON_DEPTH} levels: {path}")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _depth_over(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return False


def load_config(path: Path) -> RunConfig:
    return parse_config(read_json_file(path, "config file"), str(path))


def load_prompt(path: Path) -> str:
    text = read_input_text(path, "prompt file")
    if not text.strip():
        raise InvocationError(f"prompt file is empty: {path}")
    return text


def apply_overrides(config: RunConfig) -> list[str]:
    """Force the settings spec §6.2 fixes; returns one warning per override applied."""
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


@dataclass(frozen=True)
class ResolvedImport:
    path: str
    content: str


def resolve_imports(config: RunConfig, workspace: Path) -> list[ResolvedImport]:
    """Imports in declared order. Inline content wins; a path is a repository path, read
    relative to the workspace: ``GITHUB_WORKSPACE`` when set, else the current directory (the
    caller's ``Harness.workspace``), never config.json's folder (the compiler writes repository
    paths, and ``examples/pr-review/config.json`` names ``examples/pr-review/checklist.md``)."""
    base = workspace
    out: list[ResolvedImport] = []
    for i, entry in enumerate(config.imports):
        path, content = (entry, None) if isinstance(entry, str) else (entry.path, entry.content)
        if content is not None:
            out.append(ResolvedImport(path, content))
            continue
        if not path.strip() or "\x00" in path:
            raise InvocationError(f"imports[{i}]: the path is empty or holds a NUL character: {path!r}")
        try:
            out.append(ResolvedImport(path, read_text_or_problem((base / path).resolve())))
        except InputFileProblem as exc:
            raise InvocationError(f"imports[{i}]: {path}: {exc} (looked in {base})") from None
    return out


def import_block(item: ResolvedImport) -> str:
    """An import as it appears in the first message (gh-aw's TS harness format)."""
    return f"<!-- import: {item.path} -->\n{item.content.rstrip()}\n<!-- /import: {item.path} -->"


def assemble_prompt(imports: list[ResolvedImport], prompt: str) -> str:
    """Imports in order, then the prompt body: one atomic first message (spec §6.3)."""
    return "\n\n".join([*(import_block(i) for i in imports), prompt])
