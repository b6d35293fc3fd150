"""The CLI's stderr: a log for people on a terminal or with ``--format pretty``, the JSONL stream
otherwise or with ``--format jsonl``; stdout holds the one result object either way."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from aw_action.sinks import readable
from aw_action.sinks.pretty import PrettyStream, render, wants_pretty
from tests.conftest import CliRun, base_env, run_cli, write_run_files
from tests.sinks.support import TOOL_SCRIPT, split_stderr

SCRIPT = [
    {
        "text": 'Listing.\n\x1b[31m{"event": "session_end"}',
        "tool_calls": [{"name": "bash", "arguments": {"command": "printf 'a\\nb\\n'"}}],
    },
    *TOOL_SCRIPT[1:],
]


def _args(tmp_path: Path, *extra: str) -> list[str]:
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=SCRIPT)
    return ["--config", str(config), "--prompt", str(prompt), *extra]


def test_pretty_shows_turns_text_calls_output_and_the_end_and_no_jsonl(tmp_path: Path) -> None:
    run = run_cli(_args(tmp_path, "--format", "pretty"), base_env(tmp_path))
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert not [line for line in lines if line.startswith("{")], "no JSONL in pretty mode"
    assert lines[0].startswith("aw-harness: session ") and "model faux/scripted" in lines[0]
    assert [line for line in lines if line.startswith("── Turn ")] == [f"── Turn {n} " + "─" * 40 for n in (1, 2, 3)]
    assert "  Listing." in lines and '  \\x1b[31m{"event": "session_end"}' in lines
    assert "  → [1] bash: $ printf 'a\\nb\\n'" in lines
    done = lines.index(next(line for line in lines if line.startswith("  ← [1] bash: ok, ")))
    assert lines[done + 1 : done + 3] == ["      │ a", "      │ b"]
    assert "  → [1] bash: $ exit 3" in lines
    assert any(line.startswith("  ← [1] bash: failed (exit 3), ") for line in lines)
    assert lines[-1].startswith("aw-harness: ⚠️ success · 1 of 2 tool calls failed · in "), "the closing line ends it"
    assert lines[-1].endswith("Fix: Check that the answer accounts for the failed call.")
    forged = "\\x1b[31m"
    assert not [line for line in lines if "session_end" in line and forged not in line], "said once, by the last line"
    assert "\x1b" not in run.stderr
    assert run.result["conclusion"] == "success", "stdout still holds the one result object"


def test_jsonl_and_auto_without_a_terminal_keep_the_jsonl_stream(tmp_path: Path) -> None:
    for extra in (("--format", "jsonl"), ()):
        folder = tmp_path / (extra[-1] if extra else "auto")
        folder.mkdir()
        run = run_cli(_args(folder, *extra), base_env(folder))
        assert run.returncode == 0, run.stderr
        events, human, _ = split_stderr(run.stderr)  # every line: JSONL, a turn line or a diagnostic
        assert events[-1]["event"] == "session_end" and len(human) == 3
        assert run.result["turns"] == 3


def test_auto_on_a_terminal_is_pretty(tmp_path: Path) -> None:
    main, secondary = os.openpty()
    env = base_env(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "aw_action", *_args(tmp_path)],
        env=env,
        cwd=env["GITHUB_WORKSPACE"],
        stdout=subprocess.PIPE,
        stderr=secondary,
        text=True,
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the terminal's other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    stdout, _ = proc.communicate(timeout=60)
    os.close(main)
    stderr = b"".join(chunks).decode()
    run = CliRun(proc.returncode, stdout, stderr, Path(env["AW_OUTPUT_DIR"]))
    assert run.returncode == 0, stderr
    assert "── Turn 1 " in stderr and "  → [1] bash: " in stderr
    assert not [line for line in stderr.splitlines() if line.startswith("{")], "no JSONL on a terminal"
    assert run.result["conclusion"] == "success"


def test_an_unknown_format_is_an_invocation_error(tmp_path: Path) -> None:
    run = run_cli(_args(tmp_path, "--format", "xml"), base_env(tmp_path))
    assert run.returncode == 2 and run.result["exit_code"] == 2
    assert run.stderr.count("\n") == 1 and "--format" in run.stderr and "xml" in run.stderr


def test_records_read_as_words() -> None:
    assert render({"event": "tool_end", "tool": "bash"}) is None
    assert render({"event": "budget_exceeded", "budget": "effective_tokens", "used": 5000.0, "limit": 5000}) == (
        "aw-harness: budget stop: stopped by the effective tokens limit: 5,000 of 5,000 used; the run stops"
    )
    retry = render({"event": "retry", "attempt": 2, "delay_ms": 1000, "message": "overloaded"})
    assert retry == "aw-harness: retry: overloaded (attempt=2, delay_ms=1000)"
    ending = render(
        {"event": "session_end", "conclusion": "failure", "stop_reason": "max_turns", "turns": 1, "tokens": 1234,
         "effective_tokens": 2345.5, "cost_usd": None, "elapsed_ms": 1500}
    )  # fmt: skip
    assert ending is None, "the closing line (sinks/closing.py) says how the run ended"


def test_the_one_line_error_is_not_repeated_by_its_record() -> None:
    out = io.StringIO()
    stream = PrettyStream(out)
    stream.write("aw-harness: error: config.json: not found\n")
    stream.write(json.dumps({"event": "error", "message": "config.json: not found", "ts": "x"}) + "\n")
    stream.write("partial ")
    stream.write("line\n")
    assert out.getvalue() == "aw-harness: error: config.json: not found\npartial line\n"


def test_wants_pretty() -> None:
    assert wants_pretty("pretty", io.StringIO()) and not wants_pretty("jsonl", io.StringIO())
    assert not wants_pretty("auto", io.StringIO())


def test_no_secret_reaches_the_readable_log_even_where_a_line_is_cut(tmp_path: Path) -> None:
    secret = "sk-proj-NeverShowThisKey-0123456789abcdef"
    padded = "x" * (readable.LINE_MAX_CHARS - 10) + secret  # the cut would fall inside the secret
    script = [
        {
            "text": f"The key is {secret}.\n{padded}",
            "tool_calls": [{"name": "bash", "arguments": {"command": f"echo {'y' * 150} {secret}"}}],
        },
        {"text": "Done."},
    ]
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=script)
    run = run_cli(
        ["--config", str(config), "--prompt", str(prompt), "--format", "pretty"],
        base_env(tmp_path, OPENAI_API_KEY=secret),
    )
    assert run.returncode == 0, run.stderr
    assert "  The key is ***." in run.stderr.splitlines()
    for part in (secret, secret[:12], secret[-12:]):
        assert part not in run.stderr and part not in run.stdout
