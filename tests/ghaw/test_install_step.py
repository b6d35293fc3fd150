"""The definition's hash-verified install, ``gh-aw/pin_wheel.py`` and the release workflow, in step.

The install (``pre-agent-steps``) runs on the runner with ``python3`` from ``runtimes: python``.
Stubbed, it shows the pip commands and the requirement it writes; with the real pip (``--dry-run``
added, so nothing is installed) it shows pip refusing a wheel whose hash the definition does not
pin. The wheel is built here the way the release builds it (hatchling, reproducibly).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.awf.rig import DEFINITION, REPO, frontmatter

PIN_WHEEL = REPO / "gh-aw" / "pin_wheel.py"
RELEASE = REPO / ".github" / "workflows" / "release.yml"
VERSION: str = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
STUB = """#!/bin/sh
printf '%s\\n' "$*" >> {log}
for arg in "$@"; do case "$prev" in -r) cat "$arg" >> {log};; esac; prev=$arg; done
"""
REAL_PIP = """#!/usr/bin/env bash
# the real pip of the test venv, which never installs: --dry-run after "pip install", and a JSON
# report of what it would install on stdout
if [ "$3" = pip ] && [ "$4" = install ]; then exec {python} "$1" "$2" "$3" "$4" --dry-run --report - "${{@:5}}"; fi
exec {python} "$@"
"""


def install_script(definition: Path = DEFINITION) -> str:
    [step] = frontmatter(definition)["pre-agent-steps"]
    script: str = step["run"]
    return script


def run_install(tmp: Path, python3: str, definition: Path = DEFINITION, **env: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "python3").write_text(python3)
    (bin_dir / "python3").chmod(0o755)
    if not (bin_dir / "aw-harness").exists():
        (bin_dir / "aw-harness").symlink_to(Path(sys.executable).parent / "aw-harness")
    step_env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp),
        "TMPDIR": str(tmp),
        "GH_AW_ENGINE_VERSION": VERSION,
        "PIP_NO_INPUT": "1",
        **env,
    }
    return subprocess.run(
        ["bash", "-e", "-c", install_script(definition)], env=step_env, capture_output=True, text=True, timeout=300
    )


def pinned(definition: Path = DEFINITION) -> dict[str, str]:
    script = install_script(definition)
    return dict(re.findall(r"^(pinned_version|pinned_sha256)=(\S+)$", script, re.M))


# ---- stubbed python3: the commands and the requirement -----------------------------------------


def test_the_index_install_is_pinned_to_the_version_and_the_hash(tmp_path: Path) -> None:
    log = tmp_path / "calls"
    run = run_install(tmp_path, STUB.format(log=log))
    assert run.returncode == 0, run.stderr
    first, requirement, second = log.read_text().splitlines()
    assert first.startswith("-P -m pip install ") and first.split()[-2] == "-r"
    for flag in ("--no-deps", "--require-hashes", "--only-binary=:all:", "--force-reinstall"):
        assert flag in first.split()
    assert requirement == f"aw-harness=={VERSION} --hash=sha256:{pinned()['pinned_sha256']}"
    assert second.split()[:4] == ["-P", "-m", "pip", "install"] and second.split()[-1] == f"aw-harness=={VERSION}"
    assert "--user" not in first + second, "into the runtimes' interpreter, whose bin directory is on PATH inside AWF"


def test_the_release_wheel_url_is_held_to_the_same_hash(tmp_path: Path) -> None:
    log = tmp_path / "calls"
    url = (
        f"https://github.com/example-org/aw-harness/releases/download/v{VERSION}/aw_harness-{VERSION}-py3-none-any.whl"
    )
    run = run_install(tmp_path, STUB.format(log=log), AW_HARNESS_WHEEL_URL=url)
    assert run.returncode == 0, run.stderr
    assert log.read_text().splitlines()[1] == f"aw-harness @ {url} --hash=sha256:{pinned()['pinned_sha256']}"


def test_an_engine_version_the_definition_does_not_pin_installs_nothing(tmp_path: Path) -> None:
    log = tmp_path / "calls"
    run = run_install(tmp_path, STUB.format(log=log), GH_AW_ENGINE_VERSION="9.9.9")
    assert run.returncode == 1 and not log.exists()
    [line] = run.stderr.splitlines()
    assert line.startswith("::error::aw-harness '9.9.9' (engine.version)") and f"pins {VERSION}" in line


# ---- the wheel, built as the release builds it ---------------------------------------------------


def build_wheel(source: Path, out: Path) -> Path:
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    cmd = [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-cache-dir", "-q", "-w", str(out)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [wheel] = out.glob("aw_harness-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield build_wheel(REPO, tmp_path_factory.mktemp("dist"))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_wheel_is_reproducible_whatever_the_files_times(wheel: Path, tmp_path: Path) -> None:
    copy = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "aw_action", copy / "aw_action", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "action.yml", ".gitignore"):
        shutil.copy2(REPO / name, copy / name)
    for path in copy.rglob("*"):
        os.utime(path, (1_700_000_000, 1_700_000_000))
    assert sha256(build_wheel(copy, tmp_path / "dist")) == sha256(wheel)


def pin_wheel(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(PIN_WHEEL), *map(str, args)], capture_output=True, text=True)


def test_pin_wheel_checks_then_writes_the_pins(wheel: Path, tmp_path: Path) -> None:
    definition = tmp_path / "aw-harness.md"
    shutil.copy(DEFINITION, definition)
    text = definition.read_text().replace(pinned()["pinned_sha256"], "0" * 64)
    definition.write_text(text)
    check = pin_wheel("--check", wheel, "--definition", definition)
    assert check.returncode == 1 and "pinned_sha256 is '000" in check.stderr and "--write" in check.stderr
    assert pin_wheel("--write", wheel, "--definition", definition).returncode == 0
    assert pinned(definition) == {"pinned_version": VERSION, "pinned_sha256": sha256(wheel)}
    assert frontmatter(definition)["engine"]["version"] == VERSION
    assert pin_wheel("--check", wheel, "--definition", definition).returncode == 0
    assert definition.read_text().replace(sha256(wheel), "0" * 64) == text, "nothing else changed"


def test_pin_wheel_refuses_what_is_not_this_projects_wheel(wheel: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "aw_harness-9.9.9-py3-none-any.whl"
    shutil.copy(wheel, renamed)
    other = tmp_path / "other-1.0-py3-none-any.whl"
    other.write_bytes(b"not a zip")
    for path, said in ((renamed, "cannot read the wheel's METADATA"), (other, "not an aw-harness wheel name")):
        run = pin_wheel("--check", path)
        assert run.returncode == 2 and said in run.stderr and len(run.stderr.splitlines()) == 1


# ---- the real pip, told the pin ------------------------------------------------------------------


def pinned_copy(tmp: Path, sha: str) -> Path:
    definition = tmp / "aw-harness.md"
    definition.write_text(DEFINITION.read_text().replace(pinned()["pinned_sha256"], sha))
    return definition


def test_pip_installs_the_pinned_wheel_and_refuses_any_other(wheel: Path, tmp_path: Path) -> None:
    python3 = REAL_PIP.format(python=sys.executable)
    url = wheel.as_uri()
    good = run_install(tmp_path / "good", python3, pinned_copy(tmp_path, sha256(wheel)), AW_HARNESS_WHEEL_URL=url)
    assert good.returncode == 0, good.stderr[-3000:]
    report, _ = json.JSONDecoder().raw_decode(good.stdout, good.stdout.index("{"))
    [item] = report["install"]
    assert (item["metadata"]["name"], item["metadata"]["version"]) == ("aw-harness", VERSION)
    assert item["download_info"]["url"] == url and item["is_direct"] is True
    tampered = tmp_path / "tampered" / wheel.name
    tampered.parent.mkdir()
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(tampered, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            dst.writestr(item, data + b"\n# changed\n" if item.filename.endswith("__main__.py") else data)
    bad = run_install(
        tmp_path / "bad", python3, pinned_copy(tmp_path, sha256(wheel)), AW_HARNESS_WHEEL_URL=tampered.as_uri()
    )
    assert bad.returncode != 0 and "DO NOT MATCH THE HASHES" in bad.stderr
    assert '"install"' not in bad.stdout, "pip stopped before it would install anything"


# ---- version, hash and the release workflow in step -----------------------------------------------


def release_jobs() -> dict[str, Any]:
    jobs: dict[str, Any] = YAML(typ="safe").load(RELEASE.read_text())["jobs"]
    return jobs


def test_the_pins_and_the_project_version_agree() -> None:
    pins = pinned()
    assert pins["pinned_version"] == frontmatter()["engine"]["version"] == VERSION
    assert re.fullmatch(r"[0-9a-f]{64}", pins["pinned_sha256"])


def test_the_release_checks_the_pin_before_anything_is_published() -> None:
    jobs = release_jobs()
    package = jobs["package"]
    runs = [step.get("run", "") for step in package["steps"]]
    build = next(i for i, run in enumerate(runs) if "hatchling build" in run)
    check = next(i for i, run in enumerate(runs) if "gh-aw/pin_wheel.py --check" in run)
    assert build < check, "the wheel is hashed as built"
    assert "dist/aw_harness-$VERSION-py3-none-any.whl" in runs[check]
    assert "SOURCE_DATE_EPOCH" not in RELEASE.read_text().replace("unset SOURCE_DATE_EPOCH", "")
    for name, job in jobs.items():
        if name in ("pypi", "github-release"):
            assert "package" in job["needs"], f"{name} publishes only a wheel whose pin was checked"
    assert "gh release create" in " ".join(s.get("run", "") for s in jobs["github-release"]["steps"])
