"""pi-workflows features that need Pi-only integrations, refused with a clear message.

aw-harness runs every step in its one agent session, with its own tools; it has no
pi-subagents, Plannotator, Pi's MCP proxy tool (``permissions.mcp`` selectors are honoured:
docs/mcp.md), Pi extensions or skills, and no reviewed-command
extraction yet. A workflow that *uses* one of these (an empty list uses nothing) fails with
``not supported by aw-harness: ...``; ``strip_inert`` then drops the empty lists so the typed
models only see what aw-harness implements.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

Path = tuple[str | int, ...]

_STEP_FEATURES = {
    "subagent": "subagent (pi-subagents delegation); every step runs in the workflow's one agent session",
    "workspace": "workspace binding (needs pi-subagents)",
}
_PERMISSION_FEATURES = {
    "extensions": "Pi extension tool selectors (permissions.extensions); grant tools by name in permissions.tools",
    "skills": "Pi skills (permissions.skills)",
}
_REQUIRE_FEATURES = {
    "extensions": "Pi extension preflight (requires.extensions)",
    "skills": "Pi skills preflight (requires.skills)",
}
_BASH_FEATURES = {
    "approvedSources": "reviewed-command sources (bash.approvedSources)",
    "handoffSources": "reviewed-command sources (bash.handoffSources)",
}


def unsupported_features(data: Any) -> Iterator[tuple[Path, str]]:
    """Each (path, description) of a Pi-only feature ``data`` uses, in file order."""
    steps = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(steps, dict):
        return
    for step_id, step in steps.items():
        if not isinstance(step, dict):
            continue
        base: Path = ("steps", step_id)
        for key, why in _STEP_FEATURES.items():
            if key in step:
                yield (*base, key), why
        permissions = step.get("permissions") or {}
        for key, why in _PERMISSION_FEATURES.items():
            if permissions.get(key):
                yield (*base, "permissions", key), why
        bash = permissions.get("bash") or {}
        for key, why in _BASH_FEATURES.items():
            if bash.get(key):
                yield (*base, "permissions", "bash", key), why
        requires = step.get("requires") or {}
        for key, why in _REQUIRE_FEATURES.items():
            if requires.get(key):
                yield (*base, "requires", key), why
        if "mcp" in (requires.get("tools") or []):
            yield (*base, "requires", "tools"), "the Pi 'mcp' proxy tool"
        gate = step.get("gate") or {}
        if gate.get("provider") == "plannotator":
            yield (
                (*base, "gate", "provider"),
                "gate provider 'plannotator'; omit provider for the built-in gate, which pauses the run "
                "until it is resumed with --approve or --request-changes",
            )


def strip_inert(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``data`` without the empty Pi-only lists and the schema hint (``$schema``)."""
    out = copy.deepcopy(data)
    out.pop("$schema", None)
    for step in out.get("steps", {}).values():
        permissions = step.get("permissions") or {}
        for key in _PERMISSION_FEATURES:
            permissions.pop(key, None)
        bash = permissions.get("bash") or {}
        for key in _BASH_FEATURES:
            bash.pop(key, None)
        requires = step.get("requires") or {}
        for key in _REQUIRE_FEATURES:
            requires.pop(key, None)
        if (step.get("gate") or {}).get("provider") == "prompt":
            step["gate"].pop("provider")
    return out
