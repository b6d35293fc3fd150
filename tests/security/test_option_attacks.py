"""Option spellings that slipped past exact-match checks (issue 19, Security II): a short-option
cluster, a GNU or git unique-prefix abbreviation, ``--opt=value``. Each attack first runs for real
against the tools on this machine, without the policy, to show it does what the issue says (runs
its payload, writes a file, reads the token); then the policy refuses the same command with a
message naming the option. A property test then lets hypothesis spell ``git grep -O`` every way
and runs each spelling the policy allows through real git: none may run the payload.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aw_action.policy import BashPolicy, check_command, policy_from_tools_bash
from tests.workflows.test_cli import Rig, call, complete, tool_results, turn

READ_ONLY = BashPolicy(mode="read-only")
TOKEN = "ghs_OptionAttackPlantedToken0123456789"


def _env(home: Path, **extra: str) -> dict[str, str]:
    """No user or system git configuration; a planted token in the environment."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.test",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.test",
        "GITHUB_TOKEN": TOKEN,
        **extra,
    }


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    work = tmp_path / "repo"
    work.mkdir()
    env = _env(tmp_path)
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "init"]):
        if argv[1] == "add":
            (work / "notes.txt").write_text("hello world\n")
        _run(argv, work, env)
    yield work


def _refused(policy: BashPolicy, argv: list[str], cwd: Path, *names: str) -> str:
    decision = check_command(policy, shlex.join(argv), cwd=str(cwd))
    assert not decision.allowed, argv
    for name in names:
        assert name in decision.reason, decision.reason
    return decision.reason


def _needs(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")


def test_git_grep_O_inside_a_short_option_cluster_runs_its_value_and_is_refused(repo: Path) -> None:
    marker = repo.parent / "cluster-ran"
    argv = ["git", "grep", "-nO" + f"touch {marker} #", "hello"]
    reason = _refused(READ_ONLY, argv, repo, "-O", "--open-files-in-pager")
    assert reason.startswith("git grep '-nOtouch"), reason
    _run(argv, repo, _env(repo.parent))
    assert marker.exists()


def test_git_grep_open_abbreviation_runs_its_value_and_is_refused(repo: Path) -> None:
    marker = repo.parent / "open-ran"
    argv = ["git", "grep", f"--open=touch {marker} #", "hello"]
    _refused(READ_ONLY, argv, repo, "--open", "--open-files-in-pager")
    _refused(policy_from_tools_bash(["git grep"]), argv, repo, "--open-files-in-pager")
    _run(argv, repo, _env(repo.parent))
    assert marker.exists()


def test_sort_compress_prog_abbreviation_runs_a_program_and_is_refused(tmp_path: Path) -> None:
    _needs("sort")
    marker, program, data = tmp_path / "sort-ran", tmp_path / "squeeze", tmp_path / "big.txt"
    program.write_text(f"#!/bin/sh\ntouch {marker}\nexec cat\n")
    program.chmod(0o755)
    data.write_text("".join(f"{(i * 7919) % 100003}\n" for i in range(5_000)))
    argv = ["sort", "--buffer-size=10K", "--compress-prog=./squeeze", "big.txt"]
    _refused(policy_from_tools_bash(["sort"]), argv, tmp_path, "--compress-prog", "--compress-program", "runs")
    _run(argv, tmp_path, _env(tmp_path))
    assert marker.exists()


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    _needs("tar")
    (tmp_path / "member.txt").write_text("member\n")
    _run(["tar", "-cf", "a.tar", "member.txt"], tmp_path, _env(tmp_path))
    (tmp_path / "member.txt").unlink()
    return tmp_path / "a.tar"


def test_tar_to_comm_abbreviation_runs_a_command_and_is_refused(archive: Path) -> None:
    marker = archive.parent / "to-command-ran"
    argv = ["tar", f"--to-comm=touch {marker}", "-xf", "a.tar"]
    _refused(policy_from_tools_bash(["tar"]), argv, archive.parent, "--to-comm", "--to-command")
    _run(argv, archive.parent, _env(archive.parent))
    assert marker.exists()


def test_tar_checkpoint_act_exec_runs_a_command_even_when_listing_and_is_refused(archive: Path) -> None:
    marker = archive.parent / "checkpoint-ran"
    argv = ["tar", "--checkpoint=1", f"--checkpoint-act=exec=touch {marker}", "-tf", "a.tar"]
    _refused(policy_from_tools_bash(["tar"]), argv, archive.parent, "--checkpoint-act", "--checkpoint-action")
    _run(argv, archive.parent, _env(archive.parent))
    assert marker.exists()


def test_git_clone_u_runs_its_value_and_is_refused(repo: Path) -> None:
    marker = repo.parent / "clone-ran"
    argv = ["git", "clone", "-q", "-u", f"touch {marker}; git-upload-pack", f"file://{repo}", "copy"]
    _refused(policy_from_tools_bash(["git"]), argv, repo.parent, "-u", "--upload-pack")
    _run(argv, repo.parent, _env(repo.parent))
    assert marker.exists()


def test_git_push_receive_abbreviation_runs_its_value_and_is_refused(repo: Path) -> None:
    marker = repo.parent / "push-ran"
    bare = repo.parent / "remote.git"
    _run(["git", "init", "-q", "--bare", str(bare)], repo.parent, _env(repo.parent))
    argv = ["git", "push", "-q", f"--receive=touch {marker}; git-receive-pack", f"file://{bare}", "HEAD:refs/heads/x"]
    _refused(policy_from_tools_bash(["git"]), argv, repo, "--receive", "--receive-pack")
    _run(argv, repo, _env(repo.parent))
    assert marker.exists()


def test_jq_dollar_space_env_reads_the_token_on_jq_1_6_and_is_refused(tmp_path: Path) -> None:
    _needs("jq")
    argv = ["jq", "-rn", "$ ENV.GITHUB_TOKEN"]
    _refused(policy_from_tools_bash(["jq"]), argv, tmp_path, "$ENV")
    version = _run(["jq", "--version"], tmp_path, _env(tmp_path)).stdout.strip()
    if version != "jq-1.6":
        pytest.skip(f"'$ ENV' is a syntax error after jq 1.6 (installed: {version}); the refusal is checked above")
    assert _run(argv, tmp_path, _env(tmp_path)).stdout.strip() == TOKEN


FILE_MAKERS = [
    ("git grep -nO'touch made-cluster #' hello", "--open-files-in-pager"),
    ("git grep --open='touch made-open #' hello", "--open-files-in-pager"),
    ("git grep --op='touch made-op #' hello", "--open-files-in-pager"),
    ("git grep -5O'touch made-digits #' hello", "--open-files-in-pager"),
    ("git diff --outp=made-diff HEAD", "--output"),
    ("git log --output=made-log", "--output"),
    ("find . -fprint made-find", "-fprint"),
]


def test_a_read_only_workflow_step_creates_no_file_however_the_option_is_spelled(tmp_path: Path) -> None:
    """The issue's end result, through ``aw-harness workflow run``: a read-only step's scripted
    agent tries each spelling; every call is refused naming the option and no file appears."""
    workflow = """\
version: 1
id: look
command: look
description: Look around read-only
start: inspect
steps:
  inspect:
    prompt: "Inspect {{workflow.input}}."
    permissions:
      tools: [bash]
      bash: {mode: read-only}
    transitions: {ready: $done}
"""
    rig = Rig(tmp_path, workflow)
    workspace = tmp_path / "ws"
    env = _env(tmp_path)
    for argv in (["git", "init", "-q"], ["git", "add", "notes.txt"], ["git", "commit", "-qm", "init"]):
        _run(argv, workspace, env)
    rig.env.update(GIT_CONFIG_NOSYSTEM="1", HOME=str(tmp_path))
    before = sorted(p.name for p in workspace.iterdir())
    run = rig.run([turn(*(call("bash", command=c) for c, _ in FILE_MAKERS)), complete("ready", "looked")])
    assert run.returncode == 0, run.stderr[-2000:]
    results = [r for r in tool_results(run) if r[0] == "bash"]
    assert len(results) == len(FILE_MAKERS)
    for (command, option), (_, is_error, text) in zip(FILE_MAKERS, results, strict=True):
        assert is_error and option in text, (command, text)
    assert sorted(p.name for p in workspace.iterdir()) == before


# ---- every spelling git accepts ---------------------------------------------------------------

_NONE_LETTERS = "nivwaIrEGFhHlLzoc"


@st.composite
def _git_grep_spellings(draw: st.DrawFn, marker: str) -> tuple[list[str], bool]:
    """A ``git grep`` command line and whether it spells ``-O``/``--open-files-in-pager``."""
    payload = f"touch {marker} #"
    form = draw(st.sampled_from(["cluster", "long", "prefix", "plain"]))
    before = draw(st.text(alphabet=_NONE_LETTERS, max_size=3))
    if form == "cluster":
        option = f"-{before}O{payload}"
    elif form == "long":
        option = f"--open-files-in-pager={payload}"
    elif form == "prefix":
        option = f"--{'open-files-in-pager'[: draw(st.integers(1, 19))]}={payload}"
    else:
        option = f"-{before}" if before else "-n"
    extra = draw(st.lists(st.sampled_from(["-i", "--line-number", "--no-op", "--count"]), max_size=2))
    pattern = draw(st.sampled_from([["hello"], ["-e", "hello"], ["-e", "-O", "-e", "hello"]]))
    return ["git", "grep", *draw(st.permutations([option, *extra])), *pattern], form != "plain"


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_spelling_of_git_grep_O_that_the_policy_allows_runs_the_pager(data: st.DataObject) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = Path(os.environ.get("TMPDIR", "/tmp")) / f"aw-option-prop-{os.getpid()}"
    shutil.rmtree(root, ignore_errors=True)
    (root / "repo").mkdir(parents=True)
    env = _env(root)
    (root / "repo" / "notes.txt").write_text("hello\n")
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "i"]):
        _run(argv, root / "repo", env)
    marker = root / "pager-ran"
    argv, spells_pager = data.draw(_git_grep_spellings(str(marker)))
    decision = check_command(READ_ONLY, shlex.join(argv), cwd=str(root / "repo"))
    _run(argv, root / "repo", env)
    try:
        assert not (decision.allowed and marker.exists()), argv
        assert not (spells_pager and decision.allowed), argv
        assert decision.allowed or "--open-files-in-pager" in decision.reason, decision.reason
    finally:
        shutil.rmtree(root, ignore_errors=True)
