"""``aw-harness audit`` on gh-aw/AWF artifacts: the golden fixture with three steering notices."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "data" / "gh-aw" / "fixtures" / "claude-awf-steering-notices"
EXPECTED: dict[str, Any] = json.loads((FIXTURE / "expected.json").read_text())["firewall_token_usage"]


def audit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aw_action", "audit", *args], capture_output=True, text=True, timeout=60
    )


def audit_json(path: Path) -> dict[str, Any]:
    proc = audit(str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def test_lists_the_same_three_notices_as_gh_aw(tmp_path: Path) -> None:
    report = audit_json(FIXTURE)
    assert report["steering_notices"] == EXPECTED["steering_notices"]


def test_unified_session_is_the_source_of_truth_for_notices(tmp_path: Path) -> None:
    """token-usage.jsonl alone lacks the detection-phase notice the unified session holds."""
    only_usage = tmp_path / "usage-only"
    only_usage.mkdir()
    shutil.copy(FIXTURE / "token-usage.jsonl", only_usage)
    notices = audit_json(only_usage)["steering_notices"]
    assert [(n["type"], n["request_id"]) for n in notices] == [
        (n["type"], n["request_id"]) for n in EXPECTED["steering_notices"] if n["phase"] == "agent"
    ]
    assert len(audit_json(FIXTURE)["steering_notices"]) == len(notices) + 1


def test_totals_match_gh_aw_agent_phase_accounting() -> None:
    report = audit_json(FIXTURE)
    totals = report["totals"]
    assert totals["input_tokens"] == EXPECTED["total_input_tokens"]
    assert totals["output_tokens"] == EXPECTED["total_output_tokens"]
    assert totals["cache_read_tokens"] == EXPECTED["total_cache_read_tokens"]
    assert totals["cache_write_tokens"] == EXPECTED["total_cache_write_tokens"]
    assert totals["requests"] == EXPECTED["total_requests"]
    assert totals["duration_ms"] == EXPECTED["total_duration_ms"]
    assert abs(totals["ai_credits"] - EXPECTED["total_aic"]) < 1e-9
    assert abs(totals["cost_usd"] - EXPECTED["total_aic"] * 0.01) < 1e-9
    assert set(report["by_model"]) == set(EXPECTED["by_model"])
    for model, expected in EXPECTED["by_model"].items():
        got = report["by_model"][model]
        for key in (
            "provider",
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "requests",
            "duration_ms",
        ):
            assert got[key] == expected[key], (model, key)
        assert abs(got["ai_credits"] - expected["aic"]) < 1e-9
    assert report["detection"]["totals"]["requests"] == 4
    assert report["overview"]["model"] == "claude-sonnet-5" and report["overview"]["conclusion"] == "success"
    assert report["overview"]["duration_ms"] == 9140


def test_reads_a_zipped_artifact_in_the_gh_aw_layout(tmp_path: Path) -> None:
    archive = tmp_path / "artifact.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(FIXTURE / "aw_session.jsonl", "usage/aw_session.jsonl")
        zf.write(FIXTURE / "token-usage.jsonl", "sandbox/firewall/logs/api-proxy-logs/token-usage.jsonl")
    report = audit_json(archive)
    assert report["steering_notices"] == EXPECTED["steering_notices"]
    assert report["sources"][0] == "usage/aw_session.jsonl"


def test_text_report_lists_notices_like_gh_aw_console() -> None:
    proc = audit(str(FIXTURE))
    assert proc.returncode == 0, proc.stderr
    assert "- ai_credit 80% request_id=d00ff6a1-276b-4edd-819e-1b29e4fddb6b" in proc.stdout
    assert "- token 95% request_id=b82dc73a-a50a-4d64-91e7-84f9cf437442 phase=detection" in proc.stdout


def test_unreadable_input_is_exit_two_with_one_line(tmp_path: Path) -> None:
    for path in (tmp_path / "missing", tmp_path):
        proc = audit(str(path))
        assert proc.returncode == 2
        assert proc.stderr.startswith("aw-harness audit: error: ") and proc.stderr.count("\n") == 1
        assert "Traceback" not in proc.stderr
