"""action.yml, the Dockerfile, the lock file and the reference docs agree with the code, and the
offline linters (hadolint, check-jsonschema) pass."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from aw_action.github.action_inputs import ActionInputs
from aw_action.github.outputs import OUTPUT_NAMES
from tests.action.launch import REPO

BIN = Path(sys.executable).parent
ACTION = YAML(typ="safe").load((REPO / "action.yml").read_text())
DOCKERFILE = (REPO / "Dockerfile").read_text()


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_action_inputs_are_exactly_the_settings_fields() -> None:
    fields = {name.replace("_", "-") for name in ActionInputs.model_fields}
    assert set(ACTION["inputs"]) == fields
    assert all(spec.get("description") for spec in ACTION["inputs"].values())
    assert ACTION["inputs"]["github-token"]["default"] == "${{ github.token }}"
    assert ACTION["inputs"]["upload-artifacts"]["default"] == "true"


def test_action_outputs_are_exactly_what_the_action_writes() -> None:
    assert list(ACTION["outputs"]) == list(OUTPUT_NAMES)
    assert all(spec.get("description") for spec in ACTION["outputs"].values())


def test_action_runs_the_published_image_of_this_version() -> None:
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert ACTION["runs"] == {"using": "docker", "image": f"docker://ghcr.io/org/aw-harness:{version}"}
    assert {"icon", "color"} <= set(ACTION["branding"])


def test_from_source_action_is_the_same_action_built_from_the_dockerfile() -> None:
    """Forks and unreleased commits use from-source/action.yml; only ``runs`` may differ."""
    from_source = YAML(typ="safe").load((REPO / "from-source" / "action.yml").read_text())
    assert from_source["runs"] == {"using": "docker", "image": "../Dockerfile"}
    assert (REPO / "from-source" / from_source["runs"]["image"]).resolve() == REPO / "Dockerfile"
    assert {k: v for k, v in from_source.items() if k != "runs"} == {k: v for k, v in ACTION.items() if k != "runs"}


def test_reference_documents_every_input_and_output() -> None:
    doc = (REPO / "docs" / "action-reference.md").read_text()
    for name in ACTION["outputs"]:
        assert re.search(rf"^\| `{re.escape(name)}` \|", doc, re.MULTILINE), name
    for name, spec in ACTION["inputs"].items():
        row = re.search(rf"^\| `{re.escape(name)}` \|([^|]*)\|", doc, re.MULTILINE)
        assert row, name
        default = str(spec.get("default") or "")
        assert row.group(1).strip() == (f"`{default}`" if default else ""), f"{name}: the default differs"


def test_entrypoint_is_exec_form_through_tini_never_a_shell() -> None:
    entrypoints = [args for word, args in _instructions() if word == "ENTRYPOINT"]
    assert len(entrypoints) == 1
    argv = json.loads(entrypoints[0])
    assert argv[:2] == ["/usr/bin/tini", "--"]
    assert argv[2].endswith("/python") and argv[3:] == ["-m", "aw_action", "action"]
    assert not any(word == "CMD" for word, _ in _instructions())


def test_final_stage_sets_no_user_and_no_workdir_and_base_images_are_pinned() -> None:
    stages: list[list[tuple[str, str]]] = []
    for word, args in _instructions():
        if word == "FROM":
            stages.append([])
            image = args.split()[0]
            assert re.fullmatch(r"python:3\.11\.\d+-slim-\w+", image), image
        stages[-1].append((word, args))
    final = [word for word, _ in stages[-1]]
    assert "USER" not in final and "WORKDIR" not in final
    runs = " ".join(args for word, args in stages[-1] if word == "RUN")
    for tool in ("git", "gh", "jq", "ripgrep", "tini"):
        assert tool in shlex.split(runs), tool


def test_the_image_names_the_tools_user_keeps_the_workspace_off_sys_path_and_has_no_sudo() -> None:
    """docs/security.md: tools run as ``aw-agent`` when the workspace is root's; ``python -m`` in
    the workspace must not import from it."""
    from aw_action.security.confinement.identity import AGENT_USER

    final = DOCKERFILE.split("\nFROM ")[-1]
    useradd = re.search(r"useradd ([^&\n]*?)(?:\s*\\?\n|$)", final)
    assert useradd, "the final stage creates the tools' user"
    words = shlex.split(useradd.group(1))
    assert words[-1] == AGENT_USER and "--system" in words and "--no-log-init" in words
    assert words[words.index("--home-dir") + 1] == f"/home/{AGENT_USER}" and "--create-home" in words
    envs = " ".join(args for word, args in _instructions() if word == "ENV")
    assert "PYTHONSAFEPATH=1" in envs.split()
    assert "sudo" not in shlex.split(" ".join(args for word, args in _instructions() if word == "RUN"))


def test_image_installs_from_the_hash_locked_requirements() -> None:
    runs = [args for word, args in _instructions() if word == "RUN"]
    installs = [part for run in runs for part in run.split("&&") if "pip install " in part]
    assert installs, "the image pip-installs something"
    for part in installs:  # every install is hash-locked, or offline from the wheel built here
        assert ("--require-hashes" in part and " -r /build/" in part) or "--no-index" in part, part
    joined = " ".join(runs)
    assert "-r /build/requirements.lock" in joined and "-r /build/requirements-build.lock" in joined
    assert "--no-build-isolation" in joined and "compileall" in joined


def _pins(lock: str) -> dict[str, str]:
    return {
        m.group(1).lower().replace("_", "-"): m.group(2)
        for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+)", lock, re.MULTILINE)
    }


def test_build_dependencies_are_pinned_and_hashed() -> None:
    """pyproject's build backend is pinned exactly and locked with hashes, with its dependencies."""
    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    lock = (REPO / "requirements-build.lock").read_text()
    pins = _pins(lock)
    for requirement in requires:
        name, _, version = requirement.partition("==")
        assert version, f"{requirement}: build requirements are pinned with =="
        assert pins.get(name.lower()) == version, f"{requirement}: requirements-build.lock differs"
    hashed = re.findall(r"^[A-Za-z0-9_.-]+==\S+ \\\n    --hash=sha256:[0-9a-f]{64}", lock, re.MULTILINE)
    assert len(hashed) == len(pins) > len(requires), "every pin (the backend's own dependencies too) has hashes"


def test_lock_file_pins_every_dependency_with_hashes() -> None:
    lock = (REPO / "requirements.lock").read_text()
    pinned = {m.group(1).lower().replace("_", "-") for m in re.finditer(r"^([A-Za-z0-9_.-]+)==", lock, re.MULTILINE)}
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    for dep in deps:
        name = re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0].lower().replace("_", "-")
        assert name in pinned, f"{name} is missing from requirements.lock: regenerate it"
    hashed = re.findall(r"^[A-Za-z0-9_.-]+==\S+ \\\n    --hash=sha256:[0-9a-f]{64}", lock, re.MULTILINE)
    assert len(hashed) == len(pinned), "every pin carries its hashes"


ACTION_FILES = ["action.yml", "from-source/action.yml", "runner/action.yml"]


@pytest.mark.parametrize(
    "command",
    [
        ["hadolint", "Dockerfile"],
        ["check-jsonschema", "--builtin-schema", "vendor.github-actions", *ACTION_FILES],
        ["check-jsonschema", "--builtin-schema", "vendor.github-workflows", "--glob-workflows"],
    ],
    ids=["hadolint", "action-schema", "workflow-schema"],
)
def test_offline_linters_pass(command: list[str]) -> None:
    if command[-1] == "--glob-workflows":
        command = [*command[:-1], *map(str, sorted((REPO / ".github" / "workflows").glob("*.yml"))),
                   *map(str, sorted((REPO / "examples").glob("*/workflow.yml")))]  # fmt: skip
    proc = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_wheel_built_as_the_image_builds_it_carries_action_yml_where_the_action_reads_it(tmp_path: Path) -> None:
    """``aw-harness action --help`` and the unknown-input warning read action.yml at run time: the
    wheel holds a copy (pyproject's ``force-include``), built from the files the Dockerfile copies."""
    src = tmp_path / "src"
    src.mkdir()
    for word, args in _instructions():
        if word == "COPY" and args.split()[-1].startswith("/build/src"):
            *names, dest = args.split()
            for name in names:  # "DEST/" receives the named files; a DEST without "/" is the copy itself
                target = src / Path(dest).relative_to("/build/src") / (Path(name).name if dest.endswith("/") else "")
                if (REPO / name).is_dir():
                    shutil.copytree(REPO / name, target, ignore=shutil.ignore_patterns("__pycache__"))
                else:
                    shutil.copy(REPO / name, target)
    build = [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-cache-dir", "-q", "-w", str(tmp_path)]
    subprocess.run(build, check=True, capture_output=True, timeout=600)
    [wheel] = tmp_path.glob("aw_harness-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("aw_action/action.yml") == (REPO / "action.yml").read_bytes()
        archive.extractall(site)
    code = "from aw_action.github.action_manifest import *; print(manifest_path()); print(len(action_inputs()))"
    # -S: no .pth files, so the checkout's editable install does not shadow the unpacked wheel
    path = os.pathsep.join([str(site), *(p for p in sys.path if p.endswith("site-packages"))])
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=tmp_path, env={"PYTHONPATH": path}, capture_output=True, text=True
    )
    assert proc.stdout.split() == [str(site / "aw_action" / "action.yml"), str(len(ACTION["inputs"]))], proc.stderr
