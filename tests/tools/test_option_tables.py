"""The option tables agree with the real programs: the ones installed here are asked again, when
they are the versions the tables were taken from (the action image's, Debian 12); otherwise
the test is skipped, naming the version found.

GNU getopt answers for itself (gnulib/glibc ``process_long_option``): ``--x`` is ambiguous (with
the candidates), requires an argument or allows none, naming the option it resolved an
abbreviation to. git's parse-options likewise (``option `x' requires a value``, ``takes no
value``, ``ambiguous option``) and lists its options with ``--git-completion-helper-all``. Only
probes that fail before the program acts are run (a missing value, a value given to a flag).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from aw_action.policy import git_options as git
from aw_action.policy import option_tables as tables
from aw_action.policy.options import Arity, OptionSpec

GNU = {
    "cat": (tables.CAT, "(GNU coreutils) 9.1"),
    "head": (tables.HEAD, "(GNU coreutils) 9.1"),
    "tail": (tables.TAIL, "(GNU coreutils) 9.1"),
    "wc": (tables.WC, "(GNU coreutils) 9.1"),
    "stat": (tables.STAT, "(GNU coreutils) 9.1"),
    "ls": (tables.LS, "(GNU coreutils) 9.1"),
    "sort": (tables.SORT, "(GNU coreutils) 9.1"),
    "grep": (tables.GREP, "(GNU grep) 3.8"),
    "sed": (tables.SED, "(GNU sed) 4.9"),
    "tar": (tables.TAR, "(GNU tar) 1.34"),
}
GIT_TABLES = {
    "grep": git.GREP,
    "status": git.STATUS,
    "ls-files": git.LS_FILES,
    "clone": git.CLONE,
    "fetch": git.FETCH,
    "pull": git.PULL,
    "push": git.PUSH,
    "ls-remote": git.LS_REMOTE,
    "rebase": git.REBASE,
    "init": git.INIT,
}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty git repository with no remote, no configuration, nothing to push."""
    path = tmp_path_factory.mktemp("probe")
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q"], cwd=path, env=_env(path), check=True)
    return path


def _env(path: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(path), "GIT_CONFIG_NOSYSTEM": "1"}


def _stderr(argv: list[str], cwd: Path) -> str:
    run = subprocess.run(argv, cwd=cwd, env=_env(cwd), stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    return run.stderr.decode(errors="replace")


@cache
def _version(tool: str) -> str:
    if shutil.which(tool) is None:
        return ""
    run = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False, env={"LC_ALL": "C"})
    return (run.stdout + run.stderr).strip()


def _require(tool: str, expected: str) -> None:
    found = _version(tool)
    if expected not in found:
        pytest.skip(f"table made for {tool} {expected!r}; installed: {found.splitlines()[0] if found else 'none'}")


def _help_longs(tool: str) -> set[str]:
    text = subprocess.run([tool, "--help"], capture_output=True, text=True, env={"LC_ALL": "C"}).stdout
    names = set()
    for line in text.splitlines():
        if re.match(r"^\s+-", line):
            column = re.split(r"(?<=\S)\s{2,}", line.strip(), maxsplit=1)[0]
            names.update(re.findall(r"--([a-z0-9][a-z0-9-]*)", column))
    return names


@pytest.mark.parametrize("tool", sorted(GNU))
def test_gnu_tables_list_every_option_the_program_documents(tool: str) -> None:
    spec, version = GNU[tool]
    _require(tool, version)
    assert _help_longs(tool) - set(spec.long) == set()


@pytest.mark.parametrize("tool", sorted(GNU))
def test_gnu_tables_give_each_option_the_arity_getopt_gives_it(tool: str, scratch: Path) -> None:
    spec, version = GNU[tool]
    _require(tool, version)
    wrong = []
    for letter, option in spec.short.items():
        missing = _stderr([tool, f"-{letter}"], scratch) if option.arity is Arity.REQUIRED else ""
        if option.arity is Arity.REQUIRED and f"requires an argument -- '{letter}'" not in missing:
            wrong.append(f"-{letter}")
        flag_then_bad = _stderr([tool, f"-{letter}@"], scratch) if option.arity is not Arity.REQUIRED else ""
        if (option.arity is Arity.NONE) != ("invalid option -- '@'" in flag_then_bad):
            wrong.append(f"-{letter}")
    for name, option in spec.long.items():
        if option.arity is Arity.REQUIRED:
            if f"option '--{name}' requires an argument" not in _stderr([tool, f"--{name}"], scratch):
                wrong.append(f"--{name}")
        elif (option.arity is Arity.NONE) != ("doesn't allow an argument" in _stderr([tool, f"--{name}=x"], scratch)):
            wrong.append(f"--{name}")
    assert wrong == []


@pytest.mark.parametrize("tool", sorted(GNU))
def test_gnu_abbreviations_of_refused_options_resolve_as_the_table_says(tool: str, scratch: Path) -> None:
    spec, version = GNU[tool]
    _require(tool, version)
    checked = 0
    for option in spec.refused_options():
        for name in (k for k, o in spec.long.items() if o is option):
            for cut in range(1, len(name) + 1):
                prefix = name[:cut]
                owners = {o.name for k, o in spec.long.items() if k.startswith(prefix)}
                if option.arity is Arity.REQUIRED:
                    said = _stderr([tool, f"--{prefix}"], scratch)
                elif option.arity is Arity.NONE:
                    said = _stderr([tool, f"--{prefix}=x"], scratch)
                else:
                    continue
                if prefix in spec.long and spec.long[prefix] is not option:
                    continue
                if owners == {option.name}:
                    assert any(f"option '--{n}'" in said for n in spec.long if spec.long[n] is option), (prefix, said)
                else:
                    assert "is ambiguous" in said, (prefix, said)
                checked += 1
    assert checked or not spec.refused_options()


def _require_git() -> None:
    _require("git", "git version 2.39")


@pytest.mark.parametrize("sub", sorted(GIT_TABLES))
def test_git_tables_list_every_option_git_completes(sub: str, scratch: Path) -> None:
    _require_git()
    listed = subprocess.run(
        ["git", sub, "--git-completion-helper-all"], cwd=scratch, env=_env(scratch), capture_output=True, text=True
    ).stdout.split()
    names = {word[2:].rstrip("=") for word in listed if word.startswith("--") and word != "--"}
    assert names - set(GIT_TABLES[sub].long) == set()


def _git_said(sub: str, arg: str, scratch: Path) -> str:
    return _stderr(["git", sub, arg], scratch)


@pytest.mark.parametrize("sub", sorted(GIT_TABLES))
def test_git_tables_give_each_option_the_arity_parse_options_gives_it(sub: str, scratch: Path) -> None:
    _require_git()
    spec: OptionSpec = GIT_TABLES[sub]
    wrong = []
    for letter, option in spec.short.items():
        if option.arity is Arity.REQUIRED and "requires a value" not in _git_said(sub, f"-{letter}", scratch):
            wrong.append(f"-{letter}")
    for name, option in spec.long.items():
        if option.name != f"--{name}" or (name.startswith("no-") and name[3:] in spec.long):
            continue
        if option.arity is Arity.REQUIRED and "requires a value" not in _git_said(sub, f"--{name}", scratch):
            wrong.append(f"--{name}")
        if option.arity is Arity.NONE and "takes no value" not in _git_said(sub, f"--{name}=x", scratch):
            wrong.append(f"--{name}")
    assert wrong == []


@pytest.mark.parametrize("sub", sorted(GIT_TABLES))
def test_git_abbreviations_of_refused_options_resolve_as_the_table_says(sub: str, scratch: Path) -> None:
    _require_git()
    spec = GIT_TABLES[sub]
    for option in spec.refused_options():
        if option.arity is not Arity.REQUIRED:
            continue
        name = option.name[2:]
        for cut in range(1, len(name) + 1):
            prefix = name[:cut]
            if prefix in spec.long and spec.long[prefix] is not option:
                continue
            owners = {o.name for k, o in spec.long.items() if k.startswith(prefix)}
            said = _git_said(sub, f"--{prefix}", scratch)
            if owners == {option.name}:
                assert f"`{name}' requires a value" in said, (prefix, said)
            else:
                assert "ambiguous option" in said, (prefix, said)


def test_jq_table_names_the_options_jq_1_6_knows(scratch: Path) -> None:
    _require("jq", "jq-1.6")
    unknown = [
        name
        for name, option in tables.JQ.long.items()
        if name not in ("run-tests", "help", "version") and "Unknown option" in _stderr(["jq", f"--{name}"], scratch)
    ]
    assert unknown == []
    assert "Unknown option" in _stderr(["jq", "--argfilex"], scratch)
    assert "Unknown option" in _stderr(["jq", "--from-fil", "."], scratch)
