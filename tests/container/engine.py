"""A Docker engine for the container tests, and the image they run: found, or skipped saying why.

The image is ``AW_CONTAINER_IMAGE`` when set (``.ci/run`` and CI build it first); otherwise it is
built here from the repository's Dockerfile as ``aw-harness:test`` (Docker's layer cache makes a
rebuild cheap). Without an engine every container test skips with the reason ``docker info``
gave (or ``AW_CONTAINER_SKIP`` says); ``AW_REQUIRE_DOCKER=1`` (GitHub CI, where the runner has
Docker) turns that skip into a failure, so the tests cannot silently stop running there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache

import pytest

from tests.action.launch import REPO

DEFAULT_TAG = "aw-harness:test"


def docker(*args: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"docker {' '.join(args[:3])}... exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return proc


@cache
def engine_problem() -> str | None:
    """None when a Docker engine answers, else why not (one line). ``AW_CONTAINER_SKIP`` is a reason
    given by the caller (.ci/run, when the local engine could not be set up)."""
    if os.environ.get("AW_CONTAINER_SKIP"):
        return os.environ["AW_CONTAINER_SKIP"]
    if shutil.which("docker") is None:
        return "no docker CLI on PATH"
    try:
        info = ["docker", "info", "-f", "{{.ServerVersion}}"]
        proc = subprocess.run(info, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "`docker info` did not answer within 20 s"
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return f"no Docker engine: {lines[-1] if lines else 'docker info failed'}"
    return None


def require_engine() -> None:
    problem = engine_problem()
    if problem is None:
        return
    if os.environ.get("AW_REQUIRE_DOCKER") == "1":
        pytest.fail(f"AW_REQUIRE_DOCKER=1 but {problem}")
    pytest.skip(f"container tests need a Docker engine: {problem}")


@cache
def has_bridge() -> bool:
    """A daemon started with --bridge=none can only run and build with --network host."""
    return docker("network", "inspect", "bridge", check=False).returncode == 0


@cache
def image() -> str:
    """The image under test (built here when ``AW_CONTAINER_IMAGE`` is not set)."""
    require_engine()
    given = os.environ.get("AW_CONTAINER_IMAGE")
    if given:
        if docker("image", "inspect", given, check=False).returncode != 0:
            pytest.fail(f"AW_CONTAINER_IMAGE={given} is not an image on this engine")
        return given
    network = [] if has_bridge() else ["--network", "host"]
    docker("build", *network, "-q", "-t", DEFAULT_TAG, str(REPO), timeout=900)
    return DEFAULT_TAG


def image_size_bytes(tag: str) -> int:
    return int(docker("image", "inspect", "-f", "{{.Size}}", tag).stdout.strip())
