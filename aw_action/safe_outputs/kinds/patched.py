"""What the kinds that carry a patch share (a new pull request, a push to a pull request's
branch): capturing the working tree's changes beside the records when recorded, and reading the
patch back, checked, when applied.

Recording captures the changes as a ``git format-patch`` file (``safe_outputs/patch.py``: git as
the tools' user, in the sandbox, running nothing the repository names); the record carries its
name (``patch_path``) and its base commit (``base_commit``). The apply job reads the file only
by a name the recorder writes, within ``max-patch-size``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds.apply_api import Attachment
from aw_action.safe_outputs.kinds.base import Recording, RequestError, Settings
from aw_action.safe_outputs.patch import PatchError, capture_patch, is_patch_file_name, patch_file_name

SYSTEM_FIELDS = frozenset({"patch_path", "base_commit"})


def recorded(record: Mapping[str, Any], kind: str) -> dict[str, Any]:
    out = {}
    for key in sorted(SYSTEM_FIELDS):
        if not isinstance(record.get(key), str) or not record[key]:
            raise FieldError(f"{key}: missing; a {kind} record needs the patch the recorder captured")
        out[key] = record[key]
    return out


def capture(
    record: dict[str, Any], recording: Recording, kind: str, branch: str, given: bool, title: str
) -> dict[str, Any]:
    """Write the patch beside the records (as ``recording.git_user``) and name it in the record;
    ``branch`` names the file (``given``: the agent chose it, so a clash is refused)."""
    name = patch_file_name(branch)
    if (recording.output_dir / name).exists():
        if given:
            raise RequestError(f"branch: a change for {branch!r} is already recorded; choose another branch name")
        branch = f"{branch}-{secrets.token_hex(3)}"
        name = patch_file_name(branch)
    user = recording.git_user
    try:
        patch = capture_patch(
            recording.workspace,
            recording.output_dir / name,
            title=title,
            max_bytes=recording.settings.max_patch_size * 1024,
            exclude=[recording.output_dir],
            env=recording.env if user.env is None else user.env,
            identity=user.identity,
            abi=user.abi,
            records=recording.records,
        )
    except PatchError as exc:
        raise RequestError(f"{kind}: {exc}") from None
    except PermissionError as exc:  # the output dir is the harness's (tools as another user)
        raise RequestError(
            f"{kind}: cannot write the patch ({exc.strerror}): the output dir is read-only for "
            f"this user; use the {kind} tool instead"
        ) from None
    record.update(branch=branch, patch_path=name, base_commit=patch.base_commit)
    return {"branch": branch, "patch": {"path": name, "bytes": patch.size, "files": patch.files}}


def attachment(record: Mapping[str, Any], records_dir: Path, settings: Settings) -> Attachment:
    """The patch beside the records: a name the recorder writes, a regular file within
    ``max-patch-size``, and a full base commit hash."""
    name = record["patch_path"]
    if not is_patch_file_name(name):
        raise RequestError(f"patch_path: {name!r} is not a patch file name the recorder writes")
    path = records_dir / name
    if path.is_symlink() or not path.is_file():
        raise RequestError(f"patch_path: {name} is missing next to the records")
    data = path.read_bytes()
    limit = settings.max_patch_size
    if len(data) > limit * 1024:
        raise RequestError(f"patch_path: {name} is over safe-outputs.max-patch-size ({limit} KiB)")
    if not re.fullmatch(r"[0-9a-f]{40}", record["base_commit"]):
        raise RequestError("base_commit: must be a 40-character commit hash")
    return Attachment(path, data)
