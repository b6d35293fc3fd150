"""How the harness knows AWF's api-proxy sends token and credit notices (ghaw/awf_steering.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aw_action.ghaw.awf_steering import MAX_CONFIG_BYTES, AwfSteering, awf_steering

GH_AW = {"GITHUB_AW": "true"}


def awf_config(runner_temp: Path, steering: object) -> Path:
    """As the compiled agent step writes it (gh-aw awf_config_build.go), steering or not."""
    path = runner_temp / "gh-aw" / "awf-config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    proxy: dict[str, object] = {"enabled": True, "maxRuns": 500, "maxAiCredits": 1000}
    if steering is not None:
        proxy["enableTokenSteering"] = steering
    path.write_text(json.dumps({"apiProxy": proxy, "logging": {"proxyLogsDir": "/tmp/gh-aw/sandbox"}}))
    return path


@pytest.mark.parametrize(("value", "on"), [("true", True), ("false", False), ("1", False), ("TRUE", False)])
def test_the_variable_awf_reads_decides_when_set(tmp_path: Path, value: str, on: bool) -> None:
    awf_config(tmp_path, not on)  # the variable wins over the file
    env = {**GH_AW, "AWF_ENABLE_TOKEN_STEERING": value, "RUNNER_TEMP": str(tmp_path)}
    assert awf_steering(env) == AwfSteering(on, "AWF_ENABLE_TOKEN_STEERING")


@pytest.mark.parametrize(("steering", "on"), [(True, True), (False, False), (None, False), ("true", False)])
def test_the_compiled_steps_awf_config_under_runner_temp(tmp_path: Path, steering: object, on: bool) -> None:
    path = awf_config(tmp_path, steering)
    assert awf_steering({**GH_AW, "RUNNER_TEMP": str(tmp_path)}) == AwfSteering(on, str(path))


def test_gh_aw_awf_config_path_comes_first(tmp_path: Path) -> None:
    awf_config(tmp_path, False)
    named = awf_config(tmp_path / "elsewhere", True)
    env = {**GH_AW, "RUNNER_TEMP": str(tmp_path), "GH_AW_AWF_CONFIG_PATH": str(named)}
    assert awf_steering(env) == AwfSteering(True, str(named))


def test_standalone_runs_never_delegate(tmp_path: Path) -> None:
    awf_config(tmp_path, True)
    assert awf_steering({"RUNNER_TEMP": str(tmp_path), "AWF_ENABLE_TOKEN_STEERING": "true"}) == AwfSteering(False)


def test_no_signal_at_all_is_off(tmp_path: Path) -> None:
    assert awf_steering({**GH_AW, "RUNNER_TEMP": str(tmp_path)}).tokens is False


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe", b"[1, 2]", b" " * (MAX_CONFIG_BYTES + 1)])
def test_a_bad_config_is_off_and_reported(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "gh-aw" / "awf-config.json"
    path.parent.mkdir()
    path.write_bytes(content)
    found = awf_steering({**GH_AW, "RUNNER_TEMP": str(tmp_path)})
    assert found.tokens is False
    if content != b"[1, 2]":
        assert found.problem and str(path) in found.problem


def test_a_config_that_is_a_directory_or_fifo_is_not_read(tmp_path: Path) -> None:
    import os

    path = tmp_path / "gh-aw" / "awf-config.json"
    path.parent.mkdir()
    os.mkfifo(path)  # is_file() is false for a FIFO: never opened, so never blocks
    assert awf_steering({**GH_AW, "RUNNER_TEMP": str(tmp_path)}).tokens is False
