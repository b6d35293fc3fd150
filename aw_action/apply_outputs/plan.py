"""Records + config + the apply job's context -> the exact items to create (or why not).

Every record is validated again (the file is agent-writable), counted against ``max`` in file
order, and given its final form: title prefix, the config's labels, the target number, a
sanitised body ending in a visible footer and a hidden marker ``<!-- aw-harness-safe-output:
run=RUN record=HASH -->``. The hash covers the validated record (and the patch bytes), so the
same record applied again in the same run (a re-run keeps ``GITHUB_RUN_ID``) finds its item.
``--dry-run`` prints exactly these items.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aw_action.apply_outputs.context import ApplyContext
from aw_action.apply_outputs.sanitize import sanitize_body, sanitize_title
from aw_action.safe_outputs import fields
from aw_action.safe_outputs.config import (
    KINDS,
    AddComment,
    AddLabels,
    CreateIssue,
    CreatePullRequest,
    SafeOutputsConfig,
)
from aw_action.safe_outputs.patch import is_patch_file_name
from aw_action.safe_outputs.records import RecordLine
from aw_action.safe_outputs.validate import RequestError, validate_record

GITHUB_BODY_MAX_CHARS = 65_536
BRANCH_PREFIX = "aw-harness/"
MARKER_PREFIX = "<!-- aw-harness-safe-output:"


@dataclass(frozen=True)
class PlannedItem:
    line: int
    type: str
    record_hash: str
    marker: str
    title: str | None = None
    body: str | None = None
    labels: tuple[str, ...] = ()
    number: int | None = None
    draft: bool | None = None
    head_branch: str | None = None
    base_commit: str | None = None
    patch_file: Path | None = field(default=None, compare=False)
    message: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if v is not None and k != "patch_file"}
        data["labels"] = list(self.labels)
        if self.patch_file is not None:
            data["patch_file"] = self.patch_file.name
        return {"status": "planned", **data}


@dataclass(frozen=True)
class Refused:
    line: int
    type: str | None
    error: str

    def to_json(self) -> dict[str, Any]:
        return {"status": "refused", "line": self.line, "type": self.type, "error": self.error}


def record_hash(record: dict[str, Any], patch: bytes = b"") -> str:
    canonical = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8") + patch).hexdigest()[:16]


def marker(run_id: str, digest: str) -> str:
    return f"{MARKER_PREFIX} run={run_id} record={digest} -->"


def _merged_labels(*groups: Iterable[str]) -> tuple[str, ...]:
    out: dict[str, str] = {}
    for name in (n for group in groups for n in group):
        out.setdefault(name.lower(), name)
    return tuple(out.values())


def _target(cfg: AddComment | AddLabels, record: dict[str, Any], ctx: ApplyContext, key: str) -> int | None:
    """The issue or pull request number; None only in a dry run without an event."""
    if cfg.target == "*":
        return int(record["item_number"])
    if isinstance(cfg.target, int):
        return cfg.target
    number = ctx.triggering_number()
    if number is None and not (ctx.dry_run and not ctx.event):
        raise RequestError(
            f"no triggering issue or pull request in this event; set safe-outputs.{key}.target to '*' or a number"
        )
    return number


def _patch(record: dict[str, Any], records_dir: Path, config: SafeOutputsConfig) -> tuple[Path, bytes]:
    name = record["patch_path"]
    if not is_patch_file_name(name):
        raise RequestError(f"patch_path: {name!r} is not a patch file name the recorder writes")
    path = records_dir / name
    if path.is_symlink() or not path.is_file():
        raise RequestError(f"patch_path: {name} is missing next to the records")
    data = path.read_bytes()
    if len(data) > config.max_patch_size * 1024:
        raise RequestError(f"patch_path: {name} is over safe-outputs.max-patch-size ({config.max_patch_size} KiB)")
    if not re.fullmatch(r"[0-9a-f]{40}", record["base_commit"]):
        raise RequestError("base_commit: must be a 40-character commit hash")
    return path, data


def _head_branch(record: dict[str, Any], digest: str) -> str:
    """Always under ``aw-harness/`` and ending in the record hash: the branch is this record's own,
    so the apply job may move it, and the agent can never name ``main``."""
    name = str(record.get("branch") or "change").removeprefix(BRANCH_PREFIX)
    return f"{BRANCH_PREFIX}{name[:80].rstrip('/.')}-{digest[:8]}"


def _no_scrub(text: str) -> str:
    return text


def _scrubbed(record: dict[str, Any], scrub: Callable[[str], str]) -> dict[str, Any]:
    def one(value: Any) -> Any:
        if isinstance(value, str):
            return scrub(value)
        return [one(v) for v in value] if isinstance(value, list) else value

    return {k: one(v) for k, v in record.items()}


def plan_one(
    line: RecordLine,
    config: SafeOutputsConfig,
    ctx: ApplyContext,
    records_dir: Path,
    domains: list[str],
    scrub: Callable[[str], str] = _no_scrub,
) -> PlannedItem:
    """The item for one record; ``scrub`` (the redactor) runs on its text before anything else."""
    record = _scrubbed(validate_record(line.record or {}, config), scrub)
    kind = record["type"]
    cfg = config.kind(kind)
    patch_file, patch = _patch(record, records_dir, config) if kind == "create_pull_request" else (None, b"")
    digest = record_hash(record, patch)
    mark = marker(ctx.run_id, digest)
    footer = f"\n\n> Generated by an AI agent in [workflow run {ctx.run_id}]({ctx.run_url}).\n\n{mark}"
    body = None
    if "body" in record:
        body = sanitize_body(record["body"], GITHUB_BODY_MAX_CHARS - len(footer), domains) + footer
    base: dict[str, Any] = {"line": line.number, "type": kind, "record_hash": digest, "marker": mark, "body": body}
    if isinstance(cfg, CreateIssue | CreatePullRequest):
        base["title"] = sanitize_title(record["title"], cfg.title_prefix, fields.TITLE_MAX_CHARS)
        base["labels"] = _merged_labels(cfg.labels, record.get("labels", ()))
    if isinstance(cfg, CreatePullRequest):
        return PlannedItem(
            **base,
            draft=record.get("draft", cfg.draft),
            head_branch=_head_branch(record, digest),
            base_commit=record["base_commit"],
            patch_file=patch_file,
        )
    if isinstance(cfg, AddComment | AddLabels):
        base["labels"] = tuple(record.get("labels", ()))
        return PlannedItem(**base, number=_target(cfg, record, ctx, KINDS[kind]))
    if kind == "noop":
        return PlannedItem(**base, message=sanitize_body(record["message"], fields.MESSAGE_MAX_CHARS, domains))
    return PlannedItem(**base)


def plan_records(
    lines: list[RecordLine],
    config: SafeOutputsConfig,
    ctx: ApplyContext,
    records_dir: Path,
    domains: list[str],
    scrub: Callable[[str], str] = _no_scrub,
) -> list[PlannedItem | Refused]:
    """One entry per line, in file order; past a kind's ``max`` the rest of that kind is refused."""
    counts: dict[str, int] = {}
    out: list[PlannedItem | Refused] = []
    for line in lines:
        if line.record is None:
            out.append(Refused(line.number, None, line.error or "unreadable line"))
            continue
        try:
            item = plan_one(line, config, ctx, records_dir, domains, scrub)
        except RequestError as exc:
            out.append(Refused(line.number, line.type, str(exc)))
            continue
        cfg = config.kind(item.type)
        counts[item.type] = counts.get(item.type, 0) + 1
        if cfg is not None and counts[item.type] > cfg.max:
            key = KINDS[item.type]
            out.append(Refused(line.number, item.type, f"over the limit: safe-outputs.{key}.max is {cfg.max}"))
            continue
        out.append(item)
    return out
