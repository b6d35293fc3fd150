"""The kernel sandbox wired into real runs (the CLI as a process, the scripted model): the mode a
user names applies to bash and to the file tools, a read-only workflow step is read-only however
its command writes, the run says what applied (a ``sandbox`` record, a line in the step summary,
the ``TMPDIR``), and a read-only sandbox the kernel cannot enforce fails closed.

The fail-closed path is simulated through the one honest seam, ``AW_SANDBOX_ABI_LIMIT`` (read
only by ``security.confinement.sandbox.probe``: the harness then believes the kernel has no Landlock, and
every decision after the probe is the production one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aw_action.security.confinement.sandbox import probe
from tests.conftest import CliRun, base_env, run_cli, write_run_files
from tests.workflows.support import write_workflow

KERNEL = probe({})
needs_landlock = pytest.mark.skipif(KERNEL.landlock_abi < 4, reason="needs Landlock ABI 4+ (files and TCP)")
KEY = "sk-ant-api03-SandboxRunKey0123456789"
COMPLETE = "workflow_complete_step"


def bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def tool_results(run: CliRun) -> list[tuple[str, bool, str]]:
    lines = [json.loads(line) for line in (run.output_dir / "session.jsonl").read_text().splitlines()]
    messages = [r["message"] for r in lines if r.get("type") == "message"]
    return [
        (m["tool_name"], m["is_error"], m["content"][0]["text"] if m["content"] else "")
        for m in messages
        if m["role"] == "toolResult"
    ]


def run(tmp_path: Path, harness: dict[str, Any], turns: list[dict[str, Any]], **env: str) -> CliRun:
    config = {"engine": {"model": "faux/scripted"}, "harness": harness}
    cfg, prompt = write_run_files(tmp_path, config, script=[*turns, {"text": "done"}])
    summary = tmp_path / "summary.md"
    summary.write_text("")
    environ = base_env(tmp_path, ANTHROPIC_API_KEY=KEY, GITHUB_STEP_SUMMARY=str(summary), **env)
    return run_cli(["--config", str(cfg), "--prompt", str(prompt)], environ)


@needs_landlock
def test_a_read_only_run_writes_nothing_and_connects_nowhere_and_says_so(tmp_path: Path) -> None:
    import socket

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.5)
    send_udp = (
        f"socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'leak', ('127.0.0.1', {udp.getsockname()[1]}))"
    )
    turns = [
        bash("echo hi > made.txt"),
        bash(f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}))\""),
        bash('echo "$TMPDIR"; cat notes.txt'),
        {"tool_calls": [{"name": "write", "arguments": {"path": "w.txt", "content": "x"}}]},
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        bash(f'python3 -c "import socket; {send_udp}"'),
    ]
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("readable\n")
    done = run(tmp_path, {"sandbox": "read-only"}, turns)
    server.close()
    assert done.returncode == 0, done.stderr[-3000:]
    results = tool_results(done)
    assert results[0][1] and "Permission denied" in results[0][2]
    assert results[1][1] and "PermissionError" in results[1][2]
    tmpdir, notes = results[2][2].splitlines()
    assert Path(tmpdir).name.startswith("aw-tools-") and notes == "readable"
    assert (
        results[3][1] and "write refused: the sandbox is read-only here (harness.sandbox: read-only)" in results[3][2]
    )
    assert results[4][:2] == ("read", False) and "readable" in results[4][2]
    if KERNEL.socket_filter:  # UDP, which Landlock cannot restrict, is refused at socket()
        assert results[5][1] and "PermissionError" in results[5][2], results[5]
        with pytest.raises(TimeoutError):
            udp.recv(16)
    udp.close()
    assert sorted(p.name for p in (tmp_path / "ws").iterdir()) == ["notes.txt"]
    assert not Path(tmpdir).exists(), "the private TMPDIR is removed at the end"

    (record,) = done.events_named("sandbox")
    assert record["scope"] == "run" and record["bash"] == "read-only" and record["files"] == "read-only"
    assert record["bash_tcp"] is False and record["enforced"] is True
    assert record["metadata_refused"] is KERNEL.socket_filter, "chmod, chown, utime, xattrs and keys refused"
    assert record["landlock_abi"] == KERNEL.landlock_abi and record["tcp_restriction"] and record["no_new_privs"]
    summary = (tmp_path / "summary.md").read_text()
    network = "no network sockets" if KERNEL.socket_filter else "no TCP"
    line = f"Sandbox: bash read-only ({network}), file tools read-only (harness.sandbox: read-only); Landlock ABI"
    assert f"{line} {KERNEL.landlock_abi}" in summary
    unified = (done.output_dir / "aw_session.jsonl").read_text()
    assert '"harness.sandbox"' in unified


@needs_landlock
def test_workspace_write_writes_the_workspace_only(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    turns = [bash(f"echo hi > made.txt && echo no > {outside}/x.txt"), bash("mktemp && echo tmp-ok")]
    done = run(tmp_path, {"sandbox": "workspace-write"}, turns)
    assert done.returncode == 0, done.stderr[-3000:]
    results = tool_results(done)
    assert "Permission denied" in results[0][2] and (tmp_path / "ws" / "made.txt").read_text() == "hi\n"
    assert "tmp-ok" in results[1][2]
    assert list(outside.iterdir()) == []
    (record,) = done.events_named("sandbox")
    assert (record["bash"], record["bash_tcp"], record["files"]) == ("workspace-write", False, "workspace-write")


def test_without_landlock_a_read_only_sandbox_fails_closed_naming_the_cause(tmp_path: Path) -> None:
    done = run(tmp_path, {"sandbox": "read-only"}, [bash("echo hi > made.txt")], AW_SANDBOX_ABI_LIMIT="0")
    assert done.returncode == 2
    error = done.result["error"]
    assert "the read-only sandbox of this run cannot be enforced" in error
    assert "AW_SANDBOX_ABI_LIMIT=0" in error and "harness.sandbox-required: false" in error
    errors = [line for line in done.stderr.splitlines() if line.startswith("aw-harness: error:")]
    assert len(errors) == 1 and "\n" not in errors[0]
    assert not (tmp_path / "ws" / "made.txt").exists()


def test_without_landlock_the_opt_out_runs_unenforced_with_a_warning(tmp_path: Path) -> None:
    harness = {"sandbox": "read-only", "sandbox-required": False}
    done = run(tmp_path, harness, [bash("echo hi > made.txt")], AW_SANDBOX_ABI_LIMIT="0")
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "ws" / "made.txt").exists()
    assert any("running unenforced" in w["message"] for w in done.warnings)
    (end,) = done.events_named("session_end")
    assert end["degraded"] == ["sandbox"]
    (record,) = done.events_named("sandbox")
    assert record["enforced"] is False and record["landlock_abi"] == 0


def test_without_landlock_workspace_write_degrades_with_a_warning(tmp_path: Path) -> None:
    done = run(tmp_path, {"sandbox": "workspace-write"}, [bash("echo hi")], AW_SANDBOX_ABI_LIMIT="0")
    assert done.returncode == 0, done.stderr[-3000:]
    assert any("workspace-write sandbox cannot be enforced" in w["message"] for w in done.warnings)
    (end,) = done.events_named("session_end")
    assert end["degraded"] == ["sandbox"]


def test_a_malformed_abi_cap_is_an_invocation_error(tmp_path: Path) -> None:
    done = run(tmp_path, {}, [bash("true")], AW_SANDBOX_ABI_LIMIT="seven")
    assert done.returncode == 2 and "AW_SANDBOX_ABI_LIMIT: expected a whole number" in done.result["error"]


def test_no_sandbox_configured_changes_nothing_but_no_new_privs(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    done = run(tmp_path, {}, [bash(f"echo hi > {outside}/x.txt && grep NoNewPrivs /proc/self/status")])
    assert done.returncode == 0, done.stderr[-3000:]
    assert tool_results(done)[0][2].split() == ["NoNewPrivs:", "1"]
    (record,) = done.events_named("sandbox")
    assert (record["bash"], record["files"], record["source"]) == ("full", "full", "no sandbox configured")


READ_ONLY_WORKFLOW = """\
version: 1
id: ro
command: ro
description: arm the repository, then inspect it read-only
start: arm
steps:
  arm:
    prompt: Arm.
    permissions: {tools: [bash], bash: {mode: unrestricted}}
    transitions: {armed: inspect}
  inspect:
    prompt: Inspect.
    permissions: {tools: [read, bash], bash: {mode: read-only}}
    transitions: {done: $done}
"""
ARM = (
    "git init -q && git config user.email a@b && git config user.name a && echo one > a.txt && git add a.txt && "
    "git commit -qm one && echo two > a.txt && git config diff.external 'sh -c \"echo pwned > pwned.txt\"' && "
    "git diff; mv pwned.txt control.txt && echo armed"
)


def workflow_run(tmp_path: Path, **env: str) -> CliRun:
    workflow = write_workflow(tmp_path / "wf", READ_ONLY_WORKFLOW, name="ro.workflow.yml")
    turns = [
        bash(ARM),
        {"tool_calls": [{"name": COMPLETE, "arguments": {"outcome": "armed", "summary": "armed"}}]},
        bash("git diff"),
        {"tool_calls": [{"name": COMPLETE, "arguments": {"outcome": "done", "summary": "inspected"}}]},
    ]
    cfg, _ = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=turns)
    environ = base_env(tmp_path, ANTHROPIC_API_KEY=KEY, **env)
    return run_cli(["workflow", "run", str(workflow), "--input", "x", "--config", str(cfg)], environ)


@needs_landlock
def test_a_read_only_step_cannot_write_through_a_program_its_policy_allowed(tmp_path: Path) -> None:
    """``git diff`` is in the read-only preset; the repository (armed by an earlier step) makes it
    run an external diff that writes a file. The parser allowed the command; the kernel refuses
    the write."""
    done = workflow_run(tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    results = tool_results(done)
    assert "armed" in results[0][2] and (tmp_path / "ws" / "control.txt").exists(), "control: the arm step wrote"
    assert "Permission denied" in results[2][2], results[2][2]
    assert not (tmp_path / "ws" / "pwned.txt").exists()
    steps = [r for r in done.events_named("sandbox") if r["scope"] == "step"]
    assert [(r["step"], r["bash"], r["files"]) for r in steps] == [
        ("arm", "full", "read-only"),
        ("inspect", "read-only", "read-only"),
    ]
    (run_record,) = [r for r in done.events_named("sandbox") if r["scope"] == "run"]
    assert run_record["read_only_steps"] == ["inspect"]


def test_a_workflow_with_a_read_only_step_fails_closed_without_landlock(tmp_path: Path) -> None:
    done = workflow_run(tmp_path, AW_SANDBOX_ABI_LIMIT="0")
    assert done.returncode == 2
    assert "the read-only sandbox of workflow steps inspect cannot be enforced" in done.result["error"]
    assert not (tmp_path / "ws" / ".git").exists(), "no step ran"


NO_NESTED_SECCOMP = """
import ctypes, os, sys
from aw_action.security.confinement import landlock as ll
deny = ll.SECCOMP_RET_ERRNO | 1  # EPERM, as a container profile that refuses nested filters answers
program = [
    (ll.BPF_LD_W_ABS, 0, 0, ll.SECCOMP_DATA_NR),
    (ll.BPF_JEQ_K, 0, 1, 317),  # seccomp(2)
    (ll.BPF_RET_K, 0, 0, deny),
    (ll.BPF_JEQ_K, 0, 3, 157),  # prctl(2) ...
    (ll.BPF_LD_W_ABS, 0, 0, ll.SECCOMP_DATA_ARG0),
    (ll.BPF_JEQ_K, 0, 1, ll.PR_SET_SECCOMP),  # ... PR_SET_SECCOMP
    (ll.BPF_RET_K, 0, 0, deny),
    (ll.BPF_RET_K, 0, 0, ll.SECCOMP_RET_ALLOW),
]
filters = (ll.SockFilter * len(program))(*(ll.SockFilter(*op) for op in program))
fprog = ll.SockFprog(len(program), filters)
ll._check(ll._libc().prctl(ll.PR_SET_SECCOMP, ll.SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "test filter")
os.execv(sys.executable, [sys.executable, "-m", "aw_action", *sys.argv[1:]])
"""


@needs_landlock
@pytest.mark.skipif(
    os.uname().machine != "x86_64" or os.geteuid() != 0, reason="the filter below is x86_64's; root installs it"
)
def test_where_the_socket_filter_is_refused_commands_still_run_and_the_record_says_so(tmp_path: Path) -> None:
    """A container whose seccomp profile refuses nested filters: the run's check finds the socket
    filter cannot be had, so the read-only commands run (Landlock's TCP rules alone), not fail."""
    config = {"engine": {"model": "faux/scripted"}, "harness": {"sandbox": "read-only"}}
    cfg, prompt = write_run_files(tmp_path, config, script=[bash("echo ran"), {"text": "done"}])
    env = base_env(tmp_path, ANTHROPIC_API_KEY=KEY, PYTHONPATH=str(Path(__file__).parents[2]))
    proc = subprocess.run(
        [sys.executable, "-c", NO_NESTED_SECCOMP, "--config", str(cfg), "--prompt", str(prompt)],
        env=env,
        cwd=env["GITHUB_WORKSPACE"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    sandbox = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith('{"event": "sandbox"')]
    assert sandbox and sandbox[0]["socket_filter"] is False and sandbox[0]["enforced"] is True, sandbox
    entries = [json.loads(line) for line in (tmp_path / "out" / "session.jsonl").read_text().splitlines()]
    results = [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "toolResult"]
    assert [(r["is_error"], r["content"][0]["text"].strip()) for r in results] == [(False, "ran")], results
