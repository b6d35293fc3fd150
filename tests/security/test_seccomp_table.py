"""One test per row of the seccomp table (``security/confinement/seccomp.RULES``): the row's call,
made by a real process behind the real exec wrapper with the row's group installed, fails with
the row's errno, and the same call without the filter does not (so the refusal is the filter's).
A row with an argument check is also called with an argument it lets through: then the filter
changes nothing. Every call passes invalid pointers and descriptors (-1), so none changes anything
even when let through. The wrapper's source (seccomp.py then landlock.py) stays one program of the
standard library."""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import sys
from pathlib import Path

import pytest

from aw_action.security.confinement import seccomp, spawn
from aw_action.security.confinement.sandbox import Confinement

MACHINE = os.uname().machine
needs_seccomp = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not seccomp.socket_filter_supported(),
    reason="needs seccomp on x86_64 or aarch64",
)
ARGS = 6
PROBE = r"""
import ctypes, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = {}
for name, number, args in json.loads(sys.argv[1]):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    out[name] = ctypes.get_errno() if result < 0 else 0
print(json.dumps(out))
"""
GROUP_ONLY = {
    "network": Confinement("full", tcp=False, abi=0, source="test", socket_filter=True),
    "metadata": Confinement("read-only", tcp=True, abi=0, source="test", socket_filter=True),
}
"""A confinement whose wrapper spec installs exactly one group (``sockets=unix``, ``metadata=deny``)."""


def _args(rule: seccomp.Rule, value: int | None) -> list[int]:
    args = [-1] * ARGS
    if rule.arg is not None and value is not None:
        args[rule.arg] = value
    return args


def _refused_value(rule: seccomp.Rule) -> int | None:
    """An argument the row refuses: one of ``refused``, or one not in ``allowed`` (AF_INET)."""
    if rule.arg is None:
        return None
    return rule.refused[0] if rule.refused else max(rule.allowed) + 1


def _passed_value(rule: seccomp.Rule) -> int:
    """An argument the row lets through: one of ``allowed``, or one not in ``refused``."""
    return rule.allowed[0] if rule.allowed else max(rule.refused) + 1


def _calls(group: str, passed: bool) -> list[tuple[str, int, list[int]]]:
    calls = []
    for rule in seccomp.RULES:
        number = rule.number(MACHINE)
        if rule.group != group or number is None or (passed and rule.arg is None):
            continue
        calls.append((rule.syscall, number, _args(rule, _passed_value(rule) if passed else _refused_value(rule))))
    return calls


@functools.cache
def errnos(group: str, filtered: bool, passed: bool) -> dict[str, int]:
    """Each call of ``group``'s rows, made behind the wrapper (with the group's filter or without):
    its errno, 0 when it succeeded."""
    confinement = GROUP_ONLY[group]
    if not filtered:
        confinement = Confinement(confinement.mode, confinement.tcp, abi=0, source="test")
    launch = spawn.Launch(env={"PATH": "/usr/bin:/bin"}, cwd="/", confinement=confinement)
    calls = json.dumps(_calls(group, passed))
    done = spawn.run([sys.executable, "-I", "-S", "-c", PROBE, calls], launch, timeout_s=60)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    result: dict[str, int] = json.loads(done.stdout)
    return result


@needs_seccomp
@pytest.mark.parametrize("rule", seccomp.RULES, ids=lambda rule: f"{rule.group}-{rule.syscall}")
def test_each_rule_refuses_its_call_with_its_errno(rule: seccomp.Rule) -> None:
    if rule.number(MACHINE) is None:
        pytest.skip(f"{MACHINE} has no {rule.syscall} syscall")
    refused = errnos(rule.group, filtered=True, passed=False)[rule.syscall]
    unfiltered = errnos(rule.group, filtered=False, passed=False)[rule.syscall]
    assert refused == rule.errno, f"{rule.syscall}: {os.strerror(refused)} ({rule.action()})"
    assert unfiltered != rule.errno, f"{rule.syscall} fails with {os.strerror(unfiltered)} without the filter too"
    if rule.arg is not None:
        through = errnos(rule.group, filtered=True, passed=True)[rule.syscall]
        assert through == errnos(rule.group, filtered=False, passed=True)[rule.syscall] != rule.errno


def test_a_group_decides_a_call_by_its_first_rule() -> None:
    """``io_uring_setup`` is in both groups: with both installed the ``network`` row (first) decides."""
    number = seccomp.SYSCALLS["io_uring_setup"][0 if MACHINE == "x86_64" else 1]
    program = seccomp.seccomp_program(MACHINE if MACHINE in seccomp.ARCHES else "x86_64", ["network", "metadata"])
    blocks = [i for i, op in enumerate(program) if op == (seccomp.BPF_JEQ_K, 0, 1, number)]
    assert len(blocks) == 1 and program[blocks[0] + 1][3] == seccomp.SECCOMP_RET_ERRNO | seccomp.EACCES


def test_every_row_names_its_numbers_and_reason() -> None:
    for rule in seccomp.RULES:
        assert rule.group in seccomp.GROUPS and rule.why, rule.syscall
        assert rule.x86_64 is not None and rule.x86_64 < seccomp.TABLE_END, rule.syscall
        assert rule.aarch64 is None or rule.aarch64 < seccomp.TABLE_END, rule.syscall
        assert (rule.arg is None) == (not rule.refused and not rule.allowed), rule.syscall
        assert rule.action().startswith(seccomp.ERRNO_NAMES[rule.errno])


HEADERS = {
    "x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
    "aarch64": Path("/usr/include/asm-generic/unistd.h"),
}
"""The kernel headers that number each machine's calls (aarch64 uses the generic table)."""


@pytest.mark.parametrize("machine", sorted(HEADERS))
def test_the_table_numbers_agree_with_the_kernel_headers(machine: str) -> None:
    """A wrong number would refuse some other call and let the row's through; the headers the
    machine has installed (older ones lack the newest calls) say each call's number."""
    if not HEADERS[machine].is_file():
        pytest.skip(f"no {HEADERS[machine]}")
    text = HEADERS[machine].read_text()
    defined = {m[1]: int(m[2]) for m in re.finditer(r"^#define __NR_(\w+)\s+(\d+)\s*$", text, re.M)}
    checked = [rule for rule in seccomp.RULES if rule.syscall in defined]
    assert len(checked) >= 15, "the headers know most of the table"
    assert {r.syscall: r.number(machine) for r in checked} == {r.syscall: defined[r.syscall] for r in checked}
    absent = [rule.syscall for rule in seccomp.RULES if rule.number(machine) is None]
    assert not set(absent) & set(defined), "a call the table says the machine lacks"


def test_the_wrapper_is_one_program_of_the_standard_library() -> None:
    source = spawn.wrapper_source()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.col_offset == 0:
            imported.add(node.module.split(".")[0])
    assert imported <= sys.stdlib_module_names, imported - sys.stdlib_module_names
    assert source.index("def install_seccomp") < source.index("def main"), "the table comes first"
