"""The hash-locked requirement files agree with pyproject.toml (issue 28; docs/dependencies.md).

Offline checks of what `.ci/lock --check` (which asks the index, in .ci/run) also checks: every dependency
pyproject.toml names is pinned, at a version its specifier admits, in the lock that installs it; nothing is pinned
as a direct dependency that pyproject.toml no longer names; the dev lock holds the runtime lock's exact pins and
hashes, so what the tests ran against is what the image installs.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")
HASH = re.compile(r"--hash=(sha256:[0-9a-f]{64})")


@dataclass(frozen=True)
class Pin:
    version: str
    hashes: frozenset[str]
    direct: bool  # annotated "via aw-harness (pyproject.toml)"


def read_lock(name: str) -> dict[str, Pin]:
    """The pins of a uv-written lock, by canonical name, with their hashes and whether pyproject names them."""
    pins: dict[str, Pin] = {}
    current: str | None = None
    version = ""
    hashes: set[str] = set()
    direct = False

    def close() -> None:
        if current is not None:
            pins[current] = Pin(version, frozenset(hashes), direct)

    for line in (ROOT / name).read_text().splitlines():
        pinned = PIN.match(line)
        if pinned:
            close()
            current, version, hashes, direct = canonicalize_name(pinned[1]), pinned[2], set(), False
        hashes.update(HASH.findall(line))
        if "aw-harness (pyproject.toml)" in line:
            direct = True
    close()
    return pins


def requirements(group: str) -> list[Requirement]:
    if group == "runtime":
        return [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    if group == "build":
        return [Requirement(r) for r in PYPROJECT["build-system"]["requires"]]
    return [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"][group]]


@pytest.mark.parametrize(
    ("lock", "groups"),
    [
        ("requirements.lock", ["runtime"]),
        ("requirements-dev.lock", ["runtime", "dev"]),
        ("requirements-build.lock", ["build"]),
    ],
)
def test_every_dependency_is_pinned_within_its_specifier(lock: str, groups: list[str]) -> None:
    pins = read_lock(lock)
    for group in groups:
        for req in requirements(group):
            pin = pins.get(canonicalize_name(req.name))
            assert pin is not None, f"{lock} has no pin for {req} ({group}): run .ci/lock"
            assert req.specifier.contains(pin.version, prereleases=True), (
                f"{lock} pins {req.name}=={pin.version}, outside pyproject.toml's {req.specifier}: run .ci/lock"
            )
            assert pin.hashes, f"{lock} pins {req.name} without a hash"


@pytest.mark.parametrize(
    ("lock", "groups"), [("requirements.lock", ["runtime"]), ("requirements-dev.lock", ["runtime", "dev"])]
)
def test_no_direct_pin_outlives_its_dependency(lock: str, groups: list[str]) -> None:
    named = {canonicalize_name(r.name) for g in groups for r in requirements(g)}
    direct = {name for name, pin in read_lock(lock).items() if pin.direct}
    assert direct == named, f"{lock} is stale against pyproject.toml (run .ci/lock): {sorted(direct ^ named)}"


def test_the_dev_lock_installs_exactly_what_the_image_installs() -> None:
    runtime, dev = read_lock("requirements.lock"), read_lock("requirements-dev.lock")
    differing = {
        name: (pin.version, dev[name].version if name in dev else None)
        for name, pin in runtime.items()
        if name not in dev or dev[name].version != pin.version or dev[name].hashes != pin.hashes
    }
    assert not differing, f"requirements-dev.lock differs from requirements.lock (run .ci/lock): {differing}"


def test_the_build_lock_carries_what_the_editable_install_needs() -> None:
    assert "editables" in read_lock("requirements-build.lock"), "hatchling's editable build asks for editables"


def test_the_parser_reads_a_real_pin_with_its_hashes() -> None:
    """Guards the checks above against a parser that silently reads nothing."""
    pins = read_lock("requirements.lock")
    assert len(pins) > 20
    anthropic = pins["anthropic"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", anthropic.version) and len(anthropic.hashes) >= 1 and anthropic.direct
