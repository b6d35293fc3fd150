"""Issue 29, item 7: crafted recordings and absurd numbers end as exit 2 naming the input, and a
deadline is never dropped.

- a recording whose ``config_dir`` (or another recorded path) holds a NUL byte: refused, naming
  the recording's line and the field, no traceback;
- ``timeout-minutes: 1e308`` (config.json and the action's input): exit 2 naming it, before the
  deadline timer could start and die; a huge but finite one is capped, never dropped.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from aw_action.config.gh_aw_limits import GhAwEnvError, read_limits
from aw_action.run.cancel import CancelClock, StopSignals
from tests.action.launch import run_action
from tests.conftest import base_env, run_cli, write_run_files
from tests.replay.rig import Recorded, record_faux, replay
from tests.replay.test_hostile_replay import rewrite_header
from tests.replay.test_unusable_records import refused


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return record_faux(tmp_path_factory.mktemp("faux-rec"))


@pytest.fixture
def copy(recorded: Recorded, tmp_path: Path) -> Path:
    return Path(shutil.copytree(recorded.records, tmp_path / "records"))


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"config_dir": "ws\u0000/x"}, "config_dir"),
        ({"harness": {"extensions": ["./ext\u0000.py"]}}, "harness.extensions"),
        ({"harness": {"output-schema": "schema\u0000.json"}}, "harness.output-schema"),
    ],
    ids=["config_dir", "extension", "output-schema"],
)
def test_a_nul_byte_in_a_recorded_path_is_refused_naming_it(
    copy: Path, tmp_path: Path, fields: dict[str, object], named: str
) -> None:
    rewrite_header(copy, **fields)
    done = replay(tmp_path, copy)
    assert "Traceback" not in done.run.stderr, done.run.stderr[-3000:]
    refused(done, "records", named, "NUL")  # the recording, the field


@pytest.mark.parametrize("value", ["1e308", "1e30"])
def test_an_absurd_timeout_in_config_json_is_exit_2_naming_it(tmp_path: Path, value: str) -> None:
    cfg, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=[{"text": "done"}])
    cfg.write_text(cfg.read_text().replace('"engine"', f'"timeout-minutes": {value}, "engine"', 1))
    run = run_cli(["--config", str(cfg), "--prompt", str(prompt)], base_env(tmp_path))
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 2, run.stderr[-3000:]
    assert "timeout-minutes" in run.stderr


def test_an_absurd_timeout_input_is_exit_2_naming_the_input(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"prompt": "Hi.", "model": "faux/scripted", "timeout-minutes": "1e308"})
    assert "Traceback" not in run.stderr + run.stdout, (run.stdout + run.stderr)[-3000:]
    assert run.returncode == 2, run.stdout[-3000:]
    assert "timeout-minutes" in run.stdout + run.stderr


@pytest.mark.parametrize("delay", [1e308, float("inf"), 1e30])
def test_a_deadline_beyond_what_a_timer_waits_keeps_its_timer(delay: float) -> None:
    """The deadline's timer thread must not die of an overflow (the run would go on with none)."""
    stops = StopSignals(CancelClock(), 5.0)
    stops.arm_deadline(delay)
    try:
        time.sleep(0.2)
        assert stops._deadline is not None and stops._deadline.is_alive()
    finally:
        stops.disarm()


def test_an_absurd_gh_aw_timeout_is_refused_naming_the_variable() -> None:
    with pytest.raises(GhAwEnvError, match="GH_AW_TIMEOUT_MINUTES"):
        read_limits({"GH_AW_TIMEOUT_MINUTES": "1e308"})
