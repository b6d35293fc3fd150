"""What every child of ``security/confinement/spawn.py`` gets, whatever the caller passed: exactly its
environment minus credential-named variables, no descriptor but the ones it names, the tools'
user, and the wrapper when it is confined."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from aw_action.security.confinement import spawn
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import UNCONFINED


def test_the_child_gets_exactly_its_environment_without_credential_names(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "KEEP": "me",
        "GITHUB_TOKEN": "ghs_granted",
        "ANTHROPIC_API_KEY": "sk-ant-x",
        "INPUT_ANTHROPIC-API-KEY": "sk-ant-y",
        "ACTIONS_RUNTIME_TOKEN": "rt",
        "MY_SERVICE_PASSWORD": "pw",
    }
    os.environ["AW_TEST_HARNESS_ONLY"] = "harness"
    try:
        done = spawn.run(["env"], spawn.Launch(env=env, cwd=tmp_path, confinement=UNCONFINED), timeout_s=30)
    finally:
        del os.environ["AW_TEST_HARNESS_ONLY"]
    names = {line.split("=", 1)[0] for line in done.stdout.decode().splitlines()}
    assert names == {"PATH", "KEEP", "GITHUB_TOKEN"}


def test_no_descriptor_is_inherited_but_the_ones_passed(tmp_path: Path) -> None:
    leaked_r, leaked_w = os.pipe()
    passed_r, passed_w = os.pipe()
    for fd in (leaked_r, leaked_w, passed_r, passed_w):
        os.set_inheritable(fd, True)
    try:
        launch = spawn.Launch(env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path, pass_fds=(passed_w,))
        done = spawn.run(["ls", "/proc/self/fd"], launch, timeout_s=30)
    finally:
        for fd in (leaked_r, leaked_w, passed_r, passed_w):
            os.close(fd)
    fds = {int(name) for name in done.stdout.split()}
    assert passed_w in fds
    assert not {leaked_r, leaked_w, passed_r} & fds


def test_the_child_runs_as_the_tools_user_with_no_supplementary_group(tmp_path: Path, tool_user: ToolIdentity) -> None:
    launch = spawn.Launch(env={"PATH": "/usr/bin:/bin"}, cwd="/", identity=tool_user, confinement=UNCONFINED)
    done = spawn.run(["id"], launch, timeout_s=30)
    text = done.stdout.decode()
    assert f"uid={tool_user.uid}(" in text and "groups=" in text
    assert text.split("groups=")[1].count(",") == 0


def test_only_a_confined_launch_goes_through_the_wrapper(tmp_path: Path) -> None:
    plain = spawn.command(["true"], spawn.Launch(env={}, cwd=tmp_path))
    wrapped = spawn.command(["true"], spawn.Launch(env={}, cwd=tmp_path, confinement=UNCONFINED))
    assert plain == ["true"]
    assert wrapped[:4] == [spawn.helper_python(), "-I", "-S", "-c"] and wrapped[-2:] == ["--", "true"]
    assert "unset=LC_CTYPE" in wrapped, "the interpreter's locale coercion must not reach the command"


def test_start_is_the_same_rule_for_asyncio(tmp_path: Path) -> None:
    async def go() -> bytes:
        launch = spawn.Launch(env={"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-x"}, cwd=tmp_path)
        proc = await spawn.start(["env"], launch, stdout=spawn.PIPE)
        out, _ = await proc.communicate()
        return out

    assert asyncio.run(go()).decode().split() == ["PATH=/usr/bin:/bin"]
