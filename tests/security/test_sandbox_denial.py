"""A refusal by the kernel sandbox is named in the tool result: ``bash`` adds "likely refused by
the `<mode>` sandbox" and what the mode forbids when a confined command's exit code and output
look like a refusal (codex's ``is_likely_sandbox_denied``: the harness cannot see a child's
errno); the file tools, which the harness opens itself, say it for certain. The rule per case
first, then real runs (the CLI, the scripted model, Landlock) with their controls: a command
that fails for its own reasons and a run with no sandbox get no such line."""

from __future__ import annotations

from pathlib import Path

import pytest

from aw_action.security.confinement.sandbox import MODES, Confinement
from aw_action.security.confinement.sandbox_denial import (
    DENIAL_WORDS,
    FORBIDS,
    NETWORK_FORBIDS,
    SIGSYS,
    denial_line,
    forbids,
    forbids_write,
    likely_denied,
)
from tests.security.test_sandbox_run import KERNEL, bash, needs_landlock, run, tool_results

WORKSPACE_WRITE = Confinement("workspace-write", tcp=False, writable=("/work/ws", "/tmp/aw-tools-1"))
READ_ONLY = Confinement("read-only", tcp=False, socket_filter=True)
FULL = Confinement("full", tcp=True)
FULL_NO_TCP = Confinement("full", tcp=False)
WORKSPACE_WRITE_HERE = (
    "the `workspace-write` sandbox, which forbids writing outside the workspace and the run's temp folder and "
    + NETWORK_FORBIDS["socket_filter" if KERNEL.socket_filter else "tcp"]
    + "."
)
"""What a workspace-write run without TCP is said to forbid on this kernel."""


def test_every_mode_has_one_description_and_only_full_forbids_nothing() -> None:
    assert set(FORBIDS) == set(MODES)
    assert [mode for mode in MODES if not FORBIDS[mode]] == ["full"]
    assert forbids(FULL) == "" and forbids(FULL_NO_TCP) == "TCP connections"
    assert forbids(READ_ONLY) == "writing any file (only /dev/null and the like are writable) and opening any " + (
        "network socket (TCP, UDP, raw)"
    )


@pytest.mark.parametrize(
    ("confinement", "code", "output", "denied"),
    [
        (WORKSPACE_WRITE, 1, "", False),  # a failure with no refusal's wording
        (WORKSPACE_WRITE, 1, "bash: /etc/x: Permission denied", True),
        (WORKSPACE_WRITE, 101, "cargo failed: Read-only file system when writing target", True),
        (WORKSPACE_WRITE, 127, "bash: nope: command not found", False),
        (WORKSPACE_WRITE, 126, "bash: ./x.sh: Permission denied", True),  # wording wins over the code
        (WORKSPACE_WRITE, 0, "Permission denied (ignored by the command)", False),
        (FULL, 1, "Operation not permitted", False),  # nothing confined: never the sandbox
        (FULL_NO_TCP, 1, "PermissionError: [Errno 13] Permission denied", True),
        (READ_ONLY, 128 + SIGSYS, "", True),  # killed by a seccomp filter
        (READ_ONLY, -SIGSYS, "", True),
        (WORKSPACE_WRITE, 128 + SIGSYS, "", False),  # no seccomp filter there
        (None, 1, "permission denied", False),
    ],
)
def test_the_rule(confinement: Confinement | None, code: int, output: str, denied: bool) -> None:
    assert likely_denied(confinement, code, output) is denied


def test_each_refusal_word_counts_in_any_case() -> None:
    for word in DENIAL_WORDS:
        assert likely_denied(WORKSPACE_WRITE, 1, f"error: {word.upper()} here")


def test_the_line_names_the_mode_and_what_it_forbids() -> None:
    assert denial_line(WORKSPACE_WRITE) == (
        "Likely refused by the `workspace-write` sandbox, which forbids writing outside the workspace "
        "and the run's temp folder and TCP connections."
    )
    assert denial_line(READ_ONLY, certain=True).startswith("Refused by the `read-only` sandbox, which forbids writing")


def test_a_write_is_forbidden_outside_the_writable_folders_only(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "link").symlink_to("/etc")
    box = Confinement("workspace-write", tcp=False, writable=(str(ws),))
    assert not forbids_write(box, ws / "new" / "file.txt")
    assert forbids_write(box, tmp_path / "ws-sibling.txt")
    assert forbids_write(box, tmp_path / "link" / "passwd"), "resolved: a link out of the workspace"
    assert not forbids_write(box, Path("/dev/null"))
    assert forbids_write(READ_ONLY, ws / "file.txt") and not forbids_write(FULL, Path("/etc/passwd"))


@needs_landlock
def test_bash_says_a_refusal_is_likely_the_sandboxs_and_a_plain_failure_is_not(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    turns = [
        bash(f"echo no > {outside}/x.txt"),
        bash("ls /no/such/folder"),
        bash("exit 3"),
        bash("echo fine > made.txt"),
    ]
    done = run(tmp_path, {"sandbox": "workspace-write"}, turns)
    assert done.returncode == 0, done.stderr[-3000:]
    refused, missing, failed, fine = (text for _, _, text in tool_results(done))
    assert "Permission denied" in refused
    assert refused.endswith(f"Command exited with code 1\nLikely refused by {WORKSPACE_WRITE_HERE}"), refused
    assert "No such file or directory" in missing and "sandbox" not in missing
    assert failed.endswith("Command exited with code 3") and "sandbox" not in failed
    assert "sandbox" not in fine and list(outside.iterdir()) == []


@needs_landlock
def test_the_file_tools_say_it_for_certain(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    turns = [
        {"tool_calls": [{"name": "write", "arguments": {"path": str(outside / "w.txt"), "content": "x"}}]},
        {"tool_calls": [{"name": "write", "arguments": {"path": "inside.txt", "content": "x"}}]},
        {"tool_calls": [{"name": "read", "arguments": {"path": "/no/such/file"}}]},
    ]
    done = run(tmp_path, {"sandbox": "workspace-write"}, turns)
    assert done.returncode == 0, done.stderr[-3000:]
    refused, written, missing = tool_results(done)
    assert refused[1] and refused[2].endswith(f"Permission denied\nRefused by {WORKSPACE_WRITE_HERE}"), refused
    assert not written[1] and (tmp_path / "ws" / "inside.txt").read_text() == "x"
    assert missing[1] and "sandbox" not in missing[2]
    assert list(outside.iterdir()) == []


@needs_landlock
def test_a_read_only_write_is_refused_with_the_modes_words(tmp_path: Path) -> None:
    edits = [{"oldText": "a", "newText": "b"}]
    turns = [{"tool_calls": [{"name": "edit", "arguments": {"path": "a.txt", "edits": edits}}]}]
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("a\n")
    done = run(tmp_path, {"sandbox": "read-only"}, turns)
    [(_, is_error, text)] = tool_results(done)
    assert is_error and "\nRefused by the `read-only` sandbox, which forbids writing any file" in text, text


def test_without_a_sandbox_no_line_is_added(tmp_path: Path) -> None:
    done = run(tmp_path, {}, [bash("echo 'cp: cannot create regular file: Permission denied' >&2; exit 1")])
    assert done.returncode == 0, done.stderr[-3000:]
    [(_, is_error, text)] = tool_results(done)
    assert is_error and "Permission denied" in text and "sandbox" not in text
