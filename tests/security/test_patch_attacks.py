"""The create_pull_request tool on a repository the agent armed (issue 19's critical finding): a
clean filter, hooks, an fsmonitor, a textconv, an external diff, a pager and an include in
``.git/config`` and ``.gitattributes``. None of them runs, the patch is still produced, and no
secret reaches any file; the controls show the same repository runs every one of them under a
plain ``git add``. When the agent does get its own program run (a ``git`` earlier on the
tools' ``PATH``), it runs as the tools' user, without a secret, unable to write outside."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from aw_action.agent.tools import ToolContext, ToolError
from aw_action.github.fork_guard import BaseFiles
from aw_action.safe_outputs import safe_output_tools
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.tool_env import github_access, tool_environment
from tests.safe_outputs.support import call, git, make_repo, tools_by_name

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-PatchPlantedKey0123456789",
    "INPUT_ANTHROPIC-API-KEY": "sk-ant-api03-PatchPlantedInputKey0123456789",
    "INPUT_GITHUB-TOKEN": "ghs_PatchPlantedGithubToken0123456789",
    "ACTIONS_RUNTIME_TOKEN": "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.patch.runtime",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.patch.oidc",
}
EVIL = """#!/bin/sh
# Writes who ran it and everything it can reach, then behaves as the filter git expects.
{{ echo "uid=$(id -u) as=$1"; env; cat /proc/1/environ 2>/dev/null | tr '\\0' '\\n'; }} > "{markers}/$1-$$"
echo leaked > "{outside}/$1-$$" 2>/dev/null
exec cat
"""


def arm(repo: Path, markers: Path, outside: Path) -> None:
    """What a prompt-injected agent writes into the repository before proposing its change."""
    evil = repo / ".evil.sh"
    evil.write_text(EVIL.format(markers=markers, outside=outside))
    evil.chmod(0o755)
    hooks = repo / ".githooks"
    hooks.mkdir()
    for hook in ("pre-commit", "post-commit", "post-index-change", "reference-transaction", "pre-auto-gc"):
        (hooks / hook).write_text(f"#!/bin/sh\nexec {evil} hook-{hook} </dev/null\n")
        (hooks / hook).chmod(0o755)
    (repo / ".extra.cfg").write_text(f'[filter "evil2"]\n\tprocess = {evil} process\n')
    with (repo / ".git" / "config").open("a") as config:
        config.write(
            f"[core]\n\tfsmonitor = {evil} fsmonitor\n\thooksPath = {hooks}\n\tpager = {evil} pager\n"
            f'[filter "evil"]\n\tclean = {evil} clean\n\tsmudge = {evil} smudge\n\trequired = true\n'
            f'[diff "evil"]\n\ttextconv = {evil} textconv\n[diff]\n\texternal = {evil} external\n'
            f"[include]\n\tpath = {repo / '.extra.cfg'}\n[gc]\n\tauto = 1\n"
        )
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n*.md filter=evil2\n")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("secret-notes.txt\n")


@pytest.fixture
def armed(shared_tmp: Path, tool_user: ToolIdentity) -> tuple[Path, Path, Path]:
    """(the repository, the markers folder, a folder outside), the repository the tools' user's."""
    markers, outside = shared_tmp / "markers", shared_tmp / "outside"
    for folder in (markers, outside):
        folder.mkdir()
        folder.chmod(0o777)
    repo = make_repo(shared_tmp / "ws")
    arm(repo, markers, outside)
    (repo / "README.md").write_text("# Hello\n\nchanged by the agent\n")
    (repo / "secret-notes.txt").write_text("excluded by .git/info/exclude\n")
    subprocess.run(["chown", "-R", f"{tool_user.uid}:{tool_user.gid}", str(repo)], check=True)
    return repo, markers, outside


def test_control_a_plain_git_add_runs_the_agents_programs(armed: tuple[Path, Path, Path], tmp_path: Path) -> None:
    repo, markers, _ = armed
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GIT_INDEX_FILE": str(tmp_path / "index")}
    subprocess.run(["git", "-c", f"safe.directory={repo}", "add", "-A"], cwd=repo, env=env, capture_output=True)
    ran = {name.split("-")[0] for name in os.listdir(markers)}
    assert {"clean", "fsmonitor"} <= ran


async def test_the_agents_programs_never_run_and_the_patch_is_made(
    armed: tuple[Path, Path, Path], shared_tmp: Path, tool_user: ToolIdentity, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, markers, outside = armed
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)  # the harness's own environment holds them, as in the action
    out = shared_tmp / "out"
    env = tool_environment({**os.environ, "PATH": "/usr/bin:/bin"}, github=github_access(None))
    tool = tools_by_name(safe_output_tools({"create-pull-request": None}, out, repo, env=env))["create_pull_request"]
    ctx = ToolContext(cwd=repo, output_dir=out, env=env, identity=tool_user)

    result = await call(tool, {"title": "Edit the readme", "body": "b", "branch": "fix/readme"}, ctx)

    patch = (out / "aw-fix-readme.patch").read_text()
    assert result.details["patch"]["files"] >= 1
    assert "+changed by the agent" in patch and "secret-notes.txt" not in patch
    assert os.listdir(markers) == [], "a program the agent configured ran"
    assert os.listdir(outside) == []
    leaked = [name for name, value in SECRETS.items() if value in patch]
    assert leaked == []


async def test_an_agent_git_on_path_runs_as_the_tools_user_without_secrets_and_confined(
    armed: tuple[Path, Path, Path], shared_tmp: Path, tool_user: ToolIdentity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the agent does get a program run (its own ``git`` first on ``PATH``), that program
    has nothing the agent did not already have. It can report only through what the agent reads
    anyway (the sandbox lets it write nowhere else): its error, the tool's answer."""
    repo, _, outside = armed
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    fake = repo / ".bin"
    fake.mkdir()
    (fake / "git").write_text(
        "#!/bin/sh\n"
        "found=$({ env; cat /proc/1/environ 2>/dev/null | tr '\\0' '\\n'; } | grep -c -e sk-ant -e ghs_ -e eyJ0)\n"
        f'if echo x > "{outside}/git" 2>/dev/null; then out=written; else out=denied; fi\n'
        'echo "report uid=$(id -u) secrets=$found outside=$out" >&2\nexit 1\n'
    )
    (fake / "git").chmod(0o755)
    subprocess.run(["chown", "-R", f"{tool_user.uid}:{tool_user.gid}", str(fake)], check=True)
    out = shared_tmp / "out"
    env = tool_environment({**os.environ, "PATH": f"{fake}:/usr/bin:/bin"}, github=github_access(None))
    tool = tools_by_name(safe_output_tools({"create-pull-request": None}, out, repo, env=env))["create_pull_request"]
    ctx = ToolContext(cwd=repo, output_dir=out, env=env, identity=tool_user)

    with pytest.raises(ToolError) as refused:
        await call(tool, {"title": "t", "body": "b", "branch": "x"}, ctx)

    assert "report " in str(refused.value), str(refused.value)
    report = str(refused.value).split("report ", 1)[1].rstrip(")").split()
    assert report == [f"uid={tool_user.uid}", "secrets=0", "outside=denied"]
    assert os.listdir(outside) == []


def test_the_fork_check_reads_the_base_without_running_anything(armed: tuple[Path, Path, Path]) -> None:
    repo, markers, _ = armed
    base = git(repo, "-c", "safe.directory=*", "rev-parse", "HEAD")
    assert BaseFiles(repo, base).read("README.md") == b"# Hello\n\nline two\n"
    assert os.listdir(markers) == []
