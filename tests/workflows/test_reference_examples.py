"""Compatibility with pi-workflows, tested against its own files (shared/reference/pi-workflows).

- Every example workflow either loads or fails with ``not supported by aw-harness: ...`` (today
  all of them use pi-subagents, so all fail that way, at the first Pi-only setting).
- With the Pi-only settings removed, every example loads: the rest of the format, its prompt
  files and their variables are understood.
- Our shipped schema accepts every example, and agrees with pi-workflows' own schema on a set of
  broken variants (both reject them).
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aw_action.workflows import UnsupportedFeatureError, load_workflow
from aw_action.workflows.errors import UNSUPPORTED_PREFIX
from aw_action.workflows.schema import schema_errors
from aw_action.workflows.yaml_strict import load_strict

_CANDIDATES = [
    Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "pi-workflows",  # shared/ beside the repo
    Path("/work/shared/reference/pi-workflows"),
]
REFERENCE = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[-1])
EXAMPLES = sorted(REFERENCE.glob("**/*.workflow.yaml"))


def test_the_reference_examples_are_present() -> None:
    assert len(EXAMPLES) == 7, f"expected the seven pi-workflows examples under {REFERENCE}"


def _pi_schema(example: Path) -> dict[str, Any]:
    version = "v1.0.1" if "v1.0.1" in example.parts else "main-6085a22"  # v2.5.1's schema equals main's
    data: dict[str, Any] = json.loads((REFERENCE / version / "schemas" / "workflow.schema.json").read_text())
    return data


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(REFERENCE)) for p in paths]


@pytest.mark.parametrize("example", EXAMPLES, ids=_ids(EXAMPLES))
def test_every_example_loads_or_fails_as_not_supported(example: Path) -> None:
    try:
        load_workflow(example)
    except UnsupportedFeatureError as exc:
        assert exc.message.startswith(UNSUPPORTED_PREFIX)
        assert str(exc).startswith(f"{example}:{exc.line}: steps.")
        assert "\n" not in str(exc)


def strip_pi_only(data: dict[str, Any]) -> dict[str, Any]:
    """The example without the settings that need Pi-only integrations."""
    out = copy.deepcopy(data)
    for step in out["steps"].values():
        step.pop("subagent", None)
        step.pop("workspace", None)
        permissions = step.get("permissions", {})
        for key in ("mcp", "extensions", "skills"):
            permissions.pop(key, None)
        for key in ("approvedSources", "handoffSources"):
            permissions.get("bash", {}).pop(key, None)
        requires = step.get("requires", {})
        requires.pop("extensions", None)
        requires.pop("skills", None)
        if "tools" in requires:
            requires["tools"] = [t for t in requires["tools"] if t != "mcp"]
        gate = step.get("gate", {})
        if gate.get("provider") == "plannotator":
            gate.pop("provider")
            gate.pop("timeoutMs", None)
    return out


@pytest.mark.parametrize("example", EXAMPLES, ids=_ids(EXAMPLES))
def test_every_example_without_pi_only_settings_loads_with_its_prompt_files(example: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(example.parent, folder)
    data = strip_pi_only(load_strict(example.read_text()).data)
    target = folder / example.name
    target.write_text(json.dumps(data, indent=1))  # JSON is YAML 1.2
    loaded = load_workflow(target)
    assert set(loaded.prompts) == set(data["steps"])
    for step_id, step in data["steps"].items():
        if isinstance(step["prompt"], dict):
            assert loaded.prompts[step_id] == (example.parent / step["prompt"]["file"]).read_text()


@pytest.mark.parametrize("example", EXAMPLES, ids=_ids(EXAMPLES))
def test_our_schema_accepts_every_example_pi_accepts(example: Path) -> None:
    data = load_strict(example.read_text()).data
    jsonschema.validate(data, _pi_schema(example))
    assert schema_errors(data) == []


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return apply


def _first_step(data: dict[str, Any]) -> dict[str, Any]:
    step: dict[str, Any] = data["steps"][data["start"]]
    return step


BROKEN: dict[str, Callable[[dict[str, Any]], None]] = {
    "unknown top-level property": _set(("owner",), "me"),
    "version 2": _set(("version",), 2),
    "no description": lambda d: d.pop("description"),
    "upper-case id": _set(("id",), "Fix"),
    "visits zero": _set(("maxStepVisits",), 0),
    "summary cap huge": _set(("summaryMaxChars",), 50_001),
    "empty steps": _set(("steps",), {}),
    "unknown step property": lambda d: _first_step(d).update(owner="me"),
    "bad transition target": lambda d: _first_step(d)["transitions"].update(ready="$finish"),
    "absolute prompt file": lambda d: _first_step(d).update(prompt={"file": "/etc/passwd"}),
    "prompt file and text": lambda d: _first_step(d).update(prompt={"file": "a.md", "text": "x"}),
    "bash mode typo": lambda d: _first_step(d)["permissions"].update(bash={"mode": "readonly"}),
    "both prefix forms": lambda d: _first_step(d)["permissions"].update(
        bash={"mode": "allow-list", "allow": [{"executable": "git", "argsPrefix": ["a"], "argsPrefixes": [["b"]]}]}
    ),
    "gate without rejected outcome": lambda d: _first_step(d).update(
        gate={"submitOutcome": "submit", "approvedOutcome": "approved"}
    ),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_our_schema_and_pis_agree_on_broken_variants(name: str) -> None:
    example = next(p for p in EXAMPLES if "main-6085a22" in p.parts)
    data = copy.deepcopy(load_strict(example.read_text()).data)
    BROKEN[name](data)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, _pi_schema(example))
    assert schema_errors(data), f"our schema accepted: {name}"
