"""One way to spawn: no module of ``aw_action`` starts a process except through
``security/confinement/spawn.py`` (docs/architecture.md). A new ``subprocess``, ``os.exec*``, ``os.spawn*``,
``os.fork``, ``pty`` or ``asyncio.create_subprocess_*`` anywhere else fails this test, naming
the file and the line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "aw_action"
ALLOWED = {
    "security/confinement/spawn.py": "the one spawn function",
    "security/confinement/landlock.py": "the exec wrapper: it runs in the child, after the spawn, and execs "
    "the command",
    "security/confinement/spawn_server.py": "the spawn server: it runs in the child, behind the exec wrapper, "
    "and starts each command from inside the confinement it already has",
    "runner_launch.py": "the runner-side action's launcher: it replaces itself with the harness (execve), "
    "before the harness exists",
}
MODULES = {"subprocess", "pty", "multiprocessing"}
ASYNC_CALLS = {"create_subprocess_exec", "create_subprocess_shell", "subprocess_exec", "subprocess_shell"}


def _os_call(name: str) -> bool:
    return name in ("system", "popen", "fork", "forkpty") or name.startswith(("exec", "spawn", "posix_spawn"))


def spawn_sites(source: str) -> list[tuple[int, str]]:
    """(line, what) for every way ``source`` could start a process."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names if a.name.split(".")[0] in MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            if root in MODULES:
                found.append((node.lineno, f"from {node.module} import ..."))
            elif root == "os":
                found += [(node.lineno, f"from os import {a.name}") for a in node.names if _os_call(a.name)]
            elif root == "asyncio":
                found += [(node.lineno, f"from asyncio import {a.name}") for a in node.names if a.name in ASYNC_CALLS]
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "os" and _os_call(node.attr):
                found.append((node.lineno, f"os.{node.attr}"))
            elif node.attr in ASYNC_CALLS:
                found.append((node.lineno, node.attr))
    return sorted(found)


@pytest.mark.parametrize(
    "line",
    [
        "import subprocess",
        "import pty",
        "from multiprocessing import Process",
        "from subprocess import run",
        "os.execvp('x', ['x'])",
        "os.spawnl(0, 'x')",
        "os.posix_spawn('x', [], {})",
        "os.fork()",
        "os.system('x')",
        "from os import execv",
        "asyncio.create_subprocess_exec('x')",
        "asyncio.create_subprocess_shell('x')",
        "loop.subprocess_exec(f, 'x')",
        "from asyncio import create_subprocess_exec",
    ],
)
def test_the_scanner_finds_every_way_to_start_a_process(line: str) -> None:
    assert spawn_sites(f"import os\n{line}\n") != []


def test_the_scanner_leaves_other_code_alone() -> None:
    assert spawn_sites("import os\nos.open('x', 0)\nos.kill(1, 9)\nos.environ.get('X')\n") == []


def test_no_module_starts_a_process_except_through_security_spawn() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in ALLOWED:
            continue
        offenders += [f"aw_action/{rel}:{line}: {what}" for line, what in spawn_sites(path.read_text())]
    assert offenders == [], "start processes through aw_action/security/confinement/spawn.py:\n" + "\n".join(offenders)


def test_every_allowed_module_exists_and_still_needs_its_exception() -> None:
    for rel in ALLOWED:
        assert spawn_sites((PACKAGE / rel).read_text()), f"{rel} no longer spawns: drop it from ALLOWED"
