"""create_pull_request: the working tree becomes a binary-safe patch next to the records, and the
user's branch, index and files are left exactly as they were."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolContext, ToolError
from aw_action.safe_outputs import safe_output_tools
from aw_action.safe_outputs.patch import is_patch_file_name, patch_file_name
from tests.safe_outputs.support import call, git, make_repo, records, tools_by_name


def setup(tmp_path: Path, config: dict[str, Any] | None = None, **env: str) -> tuple[ToolContext, Any]:
    repo = make_repo(tmp_path / "ws")
    ctx = ToolContext(cwd=repo, output_dir=tmp_path / "out")
    cfg = config if config is not None else {"create-pull-request": {"max": 2}}
    tools = tools_by_name(safe_output_tools(cfg, ctx.output_dir, repo, env=env))
    return ctx, tools["create_pull_request"]


def agent_edits(repo: Path) -> None:
    (repo / "README.md").write_text("# Hello\n\nline two, edited\n")
    (repo / "old.txt").unlink()
    (repo / "logo.bin").write_bytes(bytes(reversed(range(256))) * 4 + b"\x00\xff")
    (repo / "docs").mkdir()
    (repo / "docs" / "new file.md").write_text("untracked, with a space in the name\n")
    (repo / "tool.sh").write_text("#!/bin/sh\nexit 0\n")
    (repo / "tool.sh").chmod(0o755)
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_bytes(b"ignored")
    (repo / "run.sh").write_text("#!/bin/sh\necho staged\n")
    git(repo, "add", "run.sh")


def snapshot(repo: Path) -> dict[str, tuple[bool, bytes]]:
    files = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo)
        if path.is_file() and rel.parts[0] not in (".git", "build"):
            files[str(rel)] = (bool(path.stat().st_mode & 0o100), path.read_bytes())
    return files


def repo_state(repo: Path) -> tuple[str, ...]:
    return (
        git(repo, "rev-parse", "HEAD"),
        git(repo, "symbolic-ref", "HEAD"),
        git(repo, "status", "--porcelain", "--untracked-files=all"),
        git(repo, "diff", "--cached"),
        git(repo, "for-each-ref"),
        git(repo, "stash", "list"),
    )


async def test_the_patch_holds_every_change_and_applies_to_the_base(tmp_path: Path) -> None:
    ctx, tool = setup(tmp_path)
    agent_edits(ctx.cwd)
    result = await call(tool, {"title": "Edit things", "body": "Why", "branch": "fix/things"}, ctx)
    (record,) = records(ctx.output_dir)
    base = git(ctx.cwd, "rev-parse", "HEAD")
    assert record == {
        "type": "create_pull_request",
        "title": "Edit things",
        "body": "Why",
        "branch": "fix/things",
        "patch_path": "aw-fix-things.patch",
        "base_commit": base,
    }
    assert result.details["patch"]["files"] == 6  # README, old.txt, logo.bin, new file.md, tool.sh, run.sh
    patch = (ctx.output_dir / "aw-fix-things.patch").read_bytes()
    assert patch.startswith(b"From ") and b"GIT binary patch" in patch

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ctx.cwd), str(clone)], check=True)
    git(clone, "checkout", "-q", base)
    git(clone, "am", "-q", str(ctx.output_dir / "aw-fix-things.patch"))
    assert snapshot(clone) == snapshot(ctx.cwd)
    assert git(clone, "log", "-1", "--format=%s") == "Edit things"


async def test_the_users_branch_index_and_files_are_untouched(tmp_path: Path) -> None:
    ctx, tool = setup(tmp_path)
    agent_edits(ctx.cwd)
    before, files = repo_state(ctx.cwd), snapshot(ctx.cwd)
    await call(tool, {"title": "t", "body": "b"}, ctx)
    assert repo_state(ctx.cwd) == before
    assert snapshot(ctx.cwd) == files


async def test_an_output_dir_inside_the_workspace_is_left_out(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "ws")
    ctx = ToolContext(cwd=repo, output_dir=repo / ".aw-out")
    tools = tools_by_name(safe_output_tools({"create-pull-request": None}, ctx.output_dir, repo, env={}))
    tool = tools["create_pull_request"]
    (repo / "README.md").write_text("changed\n")
    await call(tool, {"title": "t", "body": "b"}, ctx)
    patch = next(ctx.output_dir.glob("aw-*.patch")).read_text()
    assert "README.md" in patch and ".aw-out" not in patch


async def test_no_change_is_a_tool_error_and_no_record(tmp_path: Path) -> None:
    ctx, tool = setup(tmp_path)
    (ctx.cwd / "build").mkdir()
    (ctx.cwd / "build" / "ignored.o").write_text("x")
    with pytest.raises(ToolError, match="no changes to propose"):
        await call(tool, {"title": "t", "body": "b"}, ctx)
    assert records(ctx.output_dir) == [] and not list(ctx.output_dir.glob("*.patch"))


async def test_outside_a_repository_is_a_tool_error(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    ctx = ToolContext(cwd=tmp_path / "plain", output_dir=tmp_path / "out")
    tool = tools_by_name(safe_output_tools({"create-pull-request": None}, ctx.output_dir, ctx.cwd, env={}))
    with pytest.raises(ToolError, match="is not inside a git repository"):
        await call(tool["create_pull_request"], {"title": "t", "body": "b"}, ctx)


async def test_a_patch_over_max_patch_size_is_refused(tmp_path: Path) -> None:
    ctx, tool = setup(tmp_path, {"create-pull-request": None, "max-patch-size": 1})
    (ctx.cwd / "big.txt").write_text("".join(f"line {i}\n" for i in range(1000)))
    with pytest.raises(ToolError, match=r"over the limit of 1 KiB \(safe-outputs.max-patch-size\)"):
        await call(tool, {"title": "t", "body": "b"}, ctx)
    assert records(ctx.output_dir) == [] and not list(ctx.output_dir.glob("*.patch"))


async def test_max_pull_requests_and_no_second_patch(tmp_path: Path) -> None:
    ctx, tool = setup(tmp_path, {"create-pull-request": {"max": 1}})
    (ctx.cwd / "README.md").write_text("one\n")
    await call(tool, {"title": "first", "body": "b"}, ctx)
    (ctx.cwd / "README.md").write_text("two\n")
    with pytest.raises(ToolError, match="limit reached: 1 of 1 create_pull_request"):
        await call(tool, {"title": "second", "body": "b"}, ctx)
    assert len(list(ctx.output_dir.glob("*.patch"))) == 1


async def test_the_same_branch_twice_is_refused(tmp_path: Path) -> None:
    ctx, tool = setup(tmp_path)
    (ctx.cwd / "README.md").write_text("one\n")
    await call(tool, {"title": "first", "body": "b", "branch": "topic"}, ctx)
    with pytest.raises(ToolError, match="already recorded"):
        await call(tool, {"title": "second", "body": "b", "branch": "topic"}, ctx)


@pytest.mark.parametrize(
    "branch", ["../../etc/passwd", "a/../b", "/abs", "-rf", "x.lock", "a//b", "tail/", "sp ace", "ünï", "a\nb", "."]
)
async def test_hostile_branch_names_are_refused(tmp_path: Path, branch: str) -> None:
    ctx, tool = setup(tmp_path)
    (ctx.cwd / "README.md").write_text("changed\n")
    with pytest.raises(ToolError, match="branch"):
        await call(tool, {"title": "t", "body": "b", "branch": branch}, ctx)
    assert records(ctx.output_dir) == [] and not list(ctx.output_dir.glob("*.patch"))


@pytest.mark.parametrize("branch", ["../../etc/passwd", "a/b/../../c", "..", "", "A B C", "x" * 500, "ok.patch/../x"])
def test_patch_file_names_never_leave_the_folder(branch: str) -> None:
    name = patch_file_name(branch)
    assert "/" not in name and name.startswith("aw-") and name.endswith(".patch")
    assert is_patch_file_name(name) and ".." not in name


async def test_commits_the_agent_made_since_checkout_are_included(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "ws")
    checkout = git(repo, "rev-parse", "HEAD")
    ctx = ToolContext(cwd=repo, output_dir=tmp_path / "out")
    env = {"GITHUB_SHA": checkout}
    tool = tools_by_name(safe_output_tools({"create-pull-request": None}, ctx.output_dir, repo, env=env))
    (repo / "README.md").write_text("committed by the agent\n")
    git(repo, "commit", "-qam", "agent commit")
    (repo / "extra.txt").write_text("and an uncommitted file\n")
    await call(tool["create_pull_request"], {"title": "t", "body": "b"}, ctx)
    (record,) = records(ctx.output_dir)
    assert record["base_commit"] == checkout
    patch = (ctx.output_dir / record["patch_path"]).read_text()
    assert "committed by the agent" in patch and "and an uncommitted file" in patch
