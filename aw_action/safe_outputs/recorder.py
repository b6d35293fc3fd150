"""Turn one safe-output request into one record: the path both the agent's tools and the bash
CLI take, so both validate alike and share one count per kind.

Under the records lock: count what the file already holds of the kind, refuse past ``max``
(the agent reads why), capture the patch for a pull request, append the line. A refused request
leaves no record and no patch file.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aw_action.safe_outputs.config import KINDS, SafeOutputsConfig
from aw_action.safe_outputs.patch import PatchError, capture_patch, patch_file_name
from aw_action.safe_outputs.records import RecordLog
from aw_action.safe_outputs.validate import RequestError, kind_config, validate_request
from aw_action.security.identity import ToolIdentity
from aw_action.security.record_guard import RecordWrites

APPLIED_LATER = "Recorded, not applied yet: a later job with write access applies it after this run."


def _slug(text: str) -> str:
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9]+", "-", text.lower())).strip("-")[:40] or "change"


def _scrubbed(value: Any, scrub: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_scrubbed(v, scrub) for v in value]
    return value


@dataclass(frozen=True)
class GitUser:
    """Who runs the patch's git: the tools' user with the tools' environment, confined with
    Landlock up to ``abi`` (``None``: what the kernel offers). The default is this process's
    user and ``Recorder.env`` (the ``aw-harness safe-output`` command, already a tool)."""

    identity: ToolIdentity | None = None
    env: Mapping[str, str] | None = None
    abi: int | None = None


@dataclass
class Recorder:
    config: SafeOutputsConfig
    output_dir: Path
    workspace: Path
    env: Mapping[str, str]
    scrub: Callable[[str], str] | None = None
    """The run's redactor: a secret the agent pastes into a body never reaches a record."""
    records: RecordWrites | None = None
    """The run's ledger (in the harness): the records file is reached through its held dir."""

    @property
    def log(self) -> RecordLog:
        return RecordLog(self.output_dir, self.records)

    def record(self, record_type: str, args: Mapping[str, Any], git_user: GitUser | None = None) -> dict[str, Any]:
        """Append the record; returns what the agent reads. ``RequestError`` when refused.
        ``git_user``: who captures a pull request's patch (``GitUser``)."""
        record = validate_request(record_type, args, self.config)
        if self.scrub is not None:
            record = {k: _scrubbed(v, self.scrub) for k, v in record.items()}
        limit = kind_config(record_type, self.config).max
        log = self.log
        with log.locked():
            used = log.count(record_type)
            if used >= limit:
                raise RequestError(
                    f"limit reached: {used} of {limit} {record_type} already recorded this run "
                    f"(safe-outputs.{KINDS[record_type]}.max); nothing was recorded. Put what matters most "
                    "into the ones already recorded, or call noop."
                )
            extra = self._attach_patch(record, git_user or GitUser()) if record_type == "create_pull_request" else {}
            log.append(record)
        return {
            "result": "success",
            "type": record_type,
            "used": used + 1,
            "max": limit,
            **extra,
            "note": APPLIED_LATER,
        }

    def _attach_patch(self, record: dict[str, Any], user: GitUser) -> dict[str, Any]:
        given = record.get("branch")
        branch = given or f"aw-harness/{_slug(record['title'])}-{secrets.token_hex(3)}"
        name = patch_file_name(branch)
        if (self.output_dir / name).exists():
            if given:
                raise RequestError(
                    f"branch: a pull request for {given!r} is already recorded; choose another branch name"
                )
            branch = f"{branch}-{secrets.token_hex(3)}"
            name = patch_file_name(branch)
        try:
            patch = capture_patch(
                self.workspace,
                self.output_dir / name,
                title=record["title"],
                max_bytes=self.config.max_patch_size * 1024,
                exclude=[self.output_dir],
                env=self.env if user.env is None else user.env,
                identity=user.identity,
                abi=user.abi,
                records=self.records,
            )
        except PatchError as exc:
            raise RequestError(f"create_pull_request: {exc}") from None
        except PermissionError as exc:  # the output dir is the harness's (tools as another user)
            raise RequestError(
                f"create_pull_request: cannot write the patch ({exc.strerror}): the output dir is read-only for "
                "this user; use the create_pull_request tool instead"
            ) from None
        record.update(branch=branch, patch_path=name, base_commit=patch.base_commit)
        return {"branch": branch, "patch": {"path": name, "bytes": patch.size, "files": patch.files}}
