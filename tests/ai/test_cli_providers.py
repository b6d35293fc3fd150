"""The real ``aw-harness`` CLI against a local provider server: retries, T-AW-004, no leaked key."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliRun, base_env, run_cli, write_run_files
from tests.servers import anthropic as wire
from tests.servers.wire import WireServer, free_port

KEY = "sk-ant-TESTKEY-do-not-leak-4242"
FAST_RETRY = {"AW_RETRY_BASE_DELAY_MS": "20", "AW_RETRY_JITTER_MS": "0", "AW_RETRY_MAX_ATTEMPTS": "4"}


def anthropic_env(tmp: Path, url: str, **extra: str) -> dict[str, str]:
    return base_env(tmp, ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=url, **{**FAST_RETRY, **extra})


def files(tmp: Path, model: str = "claude-sonnet-4.6") -> list[str]:
    cfg, prompt = write_run_files(tmp, {"engine": {"id": "aw", "model": model}}, "List the files, then stop.")
    return ["--config", str(cfg), "--prompt", str(prompt)]


def persisted(run: CliRun, role: str) -> list[dict[str, Any]]:
    lines = (run.output_dir / "session.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == role]


def tool_turn() -> Any:
    return wire.stream_reply(text="Looking.", tool_calls=[("bash", {"command": "echo hello"})], use=wire.usage(100, 20))


def final_turn(text: str = "All done.") -> Any:
    return wire.stream_reply(text=text, use=wire.usage(150, 10, cache_read=100))


def assert_no_key_anywhere(run: CliRun) -> None:
    assert KEY not in run.stdout and KEY not in run.stderr
    for path in run.output_dir.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), f"key leaked into {path}"


def test_t_aw_004_alias_resolves_and_reaches_the_configured_endpoint(tmp_path: Path) -> None:
    with WireServer() as server:
        server.script(final_turn("Hello from the stub."))
        run = run_cli(files(tmp_path, "claude-sonnet-4.6"), anthropic_env(tmp_path, server.url))
    assert run.returncode == 0, run.stderr
    assert run.result["model"] == "anthropic/claude-sonnet-4-6"
    assert run.result["final_message"] == "Hello from the stub."
    [req] = server.requests
    assert req.path == "/v1/messages" and req.json["model"] == "claude-sonnet-4-6"
    assert KEY in (req.headers.get("x-api-key"), req.headers.get("authorization", "").removeprefix("Bearer "))
    assert_no_key_anywhere(run)
    assert "api.anthropic.com" not in run.stderr + run.stdout
    assert not [e for e in run.events if e.get("event") == "error"]


def test_missing_credential_exits_2_naming_the_variables(tmp_path: Path) -> None:
    run = run_cli(files(tmp_path, "claude-sonnet-4.6"), base_env(tmp_path))
    assert run.returncode == 2
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN"):
        assert var in run.stderr


@pytest.fixture(scope="module")
def transient_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[CliRun, int]:
    """One run through every transient failure: 529, a tool turn, 429 with retry-after, a socket
    cut mid-message, a body without its terminal event, then the final answer."""
    tmp = tmp_path_factory.mktemp("transient")
    with WireServer() as server:
        server.script(
            wire.overloaded(),
            tool_turn(),
            wire.error_reply(429, "rate_limit_error", "Rate limited", headers={"retry-after": "1"}),
            wire.stream_reply(text="PARTIAL-ANSWER-that-is-cut-off", drop_after=5),
            wire.stream_reply(text="NO-TERMINAL-EVENT", terminal=False),
            final_turn(),
        )
        run = run_cli(files(tmp), anthropic_env(tmp, server.url))
    return run, len(server.requests)


def test_529_then_success_persists_one_message_per_turn(transient_run: tuple[CliRun, int]) -> None:
    run, requests = transient_run
    assert run.returncode == 0, run.stderr
    assert requests == 6, "two answered turns plus one request per retry"
    assert run.events_named("retry")[0]["attempt"] == 1 and run.events_named("retry")[0]["status"] == 529
    assistants = persisted(run, "assistant")
    assert [m["stop_reason"] for m in assistants] == ["toolUse", "stop"]
    assert run.result["turns"] == 2
    assert run.result["tokens"]["cache_read"] == 100 and run.result["tokens"]["input"] == 250
    assert_no_key_anywhere(run)


def test_429_with_retry_after_is_honoured(transient_run: tuple[CliRun, int]) -> None:
    run, _ = transient_run
    retries = run.events_named("retry")
    assert [r["status"] for r in retries] == [529, 429, None, None]
    assert retries[1]["delay_ms"] == 1000
    assert [r["attempt"] for r in retries] == [1, 1, 2, 3], "the second turn's request retried three times"


def test_stream_cut_mid_message_is_never_persisted(transient_run: tuple[CliRun, int]) -> None:
    run, _ = transient_run
    retries = run.events_named("retry")
    # the cut socket is retried as a transport failure (no HTTP status), whatever the SDK calls it; the body
    # without its terminal event is retried as one the harness itself judged unfinished
    assert retries[2]["status"] is None and "message_stop" not in retries[2]["error"]
    assert retries[3]["status"] is None and "message_stop" in retries[3]["error"]
    transcript = (run.output_dir / "session.jsonl").read_text()
    assert "PARTIAL-ANSWER" not in transcript and "NO-TERMINAL-EVENT" not in transcript
    assert run.result["final_message"] == "All done."
    requests = [json.loads(line) for line in (run.output_dir / "token-usage.jsonl").read_text().splitlines()]
    assert len(requests) == 2, "one usage record per completed request, none for discarded attempts"
    assert [r["attempts"] for r in requests] == [2, 4]


def test_connection_refused_then_server_up(tmp_path: Path) -> None:
    """Nothing listens on the port until the harness reports its first retry."""
    port = free_port()
    server = WireServer(port=port).script(final_turn("reached"))
    env = anthropic_env(
        tmp_path, f"http://127.0.0.1:{port}", AW_RETRY_CONNECT_DELAY_MS="300", AW_RETRY_CONNECT_ATTEMPTS="8"
    )  # about 38 s of attempts: a hang guard for a loaded machine, not a timing
    proc = subprocess.Popen(
        [sys.executable, "-m", "aw_action", *files(tmp_path)],
        env=env,
        cwd=env["GITHUB_WORKSPACE"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stderr_lines: list[str] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            stderr_lines.append(line)
            if '"event": "retry"' in line and server.pending:
                server.start()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        stdout, _ = proc.communicate(timeout=60)
        reader.join(timeout=10)
    finally:
        proc.kill()
        server.stop()
    run = CliRun(proc.returncode, stdout, "".join(stderr_lines), Path(env["AW_OUTPUT_DIR"]))
    assert run.returncode == 0, run.stderr
    retries = run.events_named("retry")
    assert retries and retries[0]["status"] is None and "connect" in retries[0]["error"].lower()
    assert len(server.requests) == 1
    assert run.result["final_message"] == "reached"
    assert len(persisted(run, "assistant")) == 1


def test_errors_echoing_the_key_and_auth_header_leak_nowhere(tmp_path: Path) -> None:
    echo = f"invalid x-api-key: {KEY} (headers: Authorization: Bearer {KEY})"
    with WireServer() as server:
        server.script(
            wire.error_reply(500, "api_error", f"internal error for {KEY}"),
            wire.error_reply(401, "authentication_error", echo),
        )
        run = run_cli(files(tmp_path), anthropic_env(tmp_path, server.url))
    assert run.returncode != 0
    assert len(server.requests) == 2, "the 500 is retried, the 401 is not"
    assert "invalid x-api-key: ***" in run.stderr, "the error itself is reported, redacted"
    assert [r["status"] for r in run.events_named("retry")] == [500]
    assert_no_key_anywhere(run)


def test_credential_for_another_provider_only_exits_2(tmp_path: Path) -> None:
    env = base_env(tmp_path, OPENAI_API_KEY="sk-openai-only-123456")
    run = run_cli(files(tmp_path, "claude-sonnet-4.6"), env)
    assert run.returncode == 2
    assert "ANTHROPIC_API_KEY" in run.stderr and "sk-openai-only-123456" not in run.stderr + run.stdout
