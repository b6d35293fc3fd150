"""Options are judged as the program reads them, not as they are spelled.

Property tests (derandomized, like the project's others): every option a table refuses is refused
however hypothesis spells it (a short-option cluster behind other flags, an attached or separate
value, the full long name, any prefix of it, ``--name=value``), in every program and git
subcommand that has a table; and in the read-only preset, clusters and unique abbreviations of
harmless options are read as the options they stand for, and allowed. Then examples: allow-list
prefixes compared on normalised arguments, the jq/sed/awk/tar/gh rules, and cases ported from
codex's ``is_safe_command`` tests (openai/codex ``codex-rs/core/src/command_safety/
is_safe_command.rs``, ``mod tests``).
"""

from __future__ import annotations

import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aw_action.policy import BashPolicy, check_command, policy_from_tools_bash
from aw_action.policy import git_options as git
from aw_action.policy import option_tables as tables
from aw_action.policy.bash_rules import READ_ONLY_PRESET
from aw_action.policy.options import Arity, Option, OptionSpec, normalise
from aw_action.policy.program_checks import PROGRAMS

CWD = "/tmp/aw-policy-test/workspace/project"
READ_ONLY = BashPolicy(mode="read-only")
CASES = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


GIT_SUBCOMMANDS = [
    "grep",
    "diff",
    "log",
    "show",
    "clone",
    "fetch",
    "pull",
    "push",
    "ls-remote",
    "rebase",
    "archive",
    "init",
    "commit",
]


def _targets() -> list[tuple[list[str], OptionSpec, Option]]:
    """(the words before the option, its table, the refused option) for every refused option."""
    found = [([name], spec, o) for name, spec in tables.SPECS.items() for o in spec.refused_options()]
    found += [(["git"], git.GLOBAL, o) for o in git.GLOBAL.refused_options()]
    for sub in GIT_SUBCOMMANDS:
        spec = git.subcommand_spec(sub)
        found += [(["git", sub], spec, o) for o in spec.refused_options()]
    found += [(["gh", "api"], tables.GH_API, o) for o in tables.GH_API.refused_options()]
    return found


TARGETS = _targets()
VALUES = st.text(alphabet="abcxyz019._=:-", min_size=1, max_size=6).filter(lambda v: not v.startswith("-"))


def _plain_letters(spec: OptionSpec) -> str:
    letters = "".join(k for k, o in spec.short.items() if o.arity is Arity.NONE and not o.refused)
    return letters + ("0123456789" if spec.digits else "")


@st.composite
def _refused_spelling(draw: st.DrawFn) -> tuple[list[str], Option]:
    head, spec, option = draw(st.sampled_from(TARGETS))
    longs = [k for k, o in spec.long.items() if o is option]
    shorts = [k for k, o in spec.short.items() if o is option]
    value = draw(VALUES)
    if shorts and (not longs or draw(st.booleans())):
        before = draw(st.text(alphabet=_plain_letters(spec), max_size=3)) if _plain_letters(spec) else ""
        word = f"-{before}{draw(st.sampled_from(shorts))}"
        if option.arity is Arity.NONE:
            words = [word]
        elif option.arity is Arity.PAIR:
            words = [word, value, value]
        else:
            words = [word + value] if draw(st.booleans()) else [word, value]
    else:
        name = draw(st.sampled_from(longs))
        cut = name[: draw(st.integers(1, len(name)))]
        if cut != name and cut in spec.long:
            cut = name
        word = f"--{cut}"
        if option.arity is Arity.PAIR:
            words = [word, value, value]
        elif option.arity is Arity.NONE or draw(st.booleans()):
            words = [word] if option.arity is not Arity.OPTIONAL or draw(st.booleans()) else [f"{word}={value}"]
            words = [f"{word}={value}"] if option.arity is Arity.REQUIRED else words
        else:
            words = [word, value] if option.arity is Arity.REQUIRED else [f"{word}={value}"]
    return [*head, *words, "x"], option


@CASES
@given(_refused_spelling())
def test_every_spelling_of_a_refused_option_is_refused_naming_it(case: tuple[list[str], Option]) -> None:
    argv, option = case
    decision = check_command(policy_from_tools_bash([argv[0]]), shlex.join(argv), cwd=CWD)
    assert not decision.allowed, argv
    assert option.name in decision.reason, (argv, decision.reason)


def _harmless_prefixes(spec: OptionSpec) -> list[tuple[str, Option]]:
    """Every unique prefix of a long option that takes no value and is not refused."""
    out = []
    for name, option in spec.long.items():
        if option.arity is Arity.NONE and not option.refused and name not in ("help", "version", "usage"):
            for cut in range(1, len(name) + 1):
                prefix = name[:cut]
                owners = {o.name for k, o in spec.long.items() if k.startswith(prefix)}
                if prefix in spec.long and spec.long[prefix] is not option:
                    continue
                if owners == {option.name}:
                    out.append((prefix, option))
    return out


PRESET_TABLES: list[tuple[list[str], OptionSpec]] = [
    *(([name], tables.SPECS[name]) for name in ("cat", "head", "tail", "wc", "stat", "ls", "grep")),
    (["git", "status"], git.STATUS),
    (["git", "ls-files"], git.LS_FILES),
    (["git", "grep"], git.GREP),
]


@st.composite
def _harmless_spelling(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    head, spec = draw(st.sampled_from(PRESET_TABLES))
    letters = "".join(k for k, o in spec.short.items() if o.arity is Arity.NONE and not o.refused and k != "V")
    cluster = draw(st.text(alphabet=letters, min_size=1, max_size=4))
    prefix, option = draw(st.sampled_from(_harmless_prefixes(spec)))
    expected = [spec.short[ch].name for ch in cluster] + [option.name]
    return [*head, f"-{cluster}", f"--{prefix}", "notes.txt"], expected


@CASES
@given(_harmless_spelling())
def test_clusters_and_abbreviations_of_harmless_options_are_read_as_those_options(
    case: tuple[list[str], list[str]],
) -> None:
    argv, expected = case
    decision = check_command(READ_ONLY, shlex.join(argv), cwd=CWD)
    assert decision.allowed, (argv, decision.reason)
    read = PROGRAMS[argv[0]].read(argv[1:])
    assert [t.option for t in read.tokens if t.option] == expected


@pytest.mark.parametrize(
    "command",
    [
        "git log --oneline --decorate --graph -n 20",
        "git log --stat --since=2.weeks --author=someone --no-merges",
        "git log -p --follow -- src/app.py",
        "git log --format=%H%x09%s --reverse --first-parent main..HEAD",
        "git show --stat --name-only HEAD~1",
        "git show --no-patch --pretty=fuller HEAD",
        "git diff --cached --name-status",
        "git diff --stat --merge-base origin/main",
        "git diff --no-ext-diff --no-textconv HEAD~2 -- README.md",
        "git diff -U5 --word-diff --color=never",
        "git grep -nI --heading --break -e TODO -- '*.py'",
        "git grep --untracked -il --max-depth=2 fixme",
        "git status --porcelain=v1 -uno --branch",
        "git ls-files --others --exclude-standard -z",
        "git rev-parse --abbrev-ref --symbolic-full-name HEAD",
        "grep -rnI --include='*.py' --exclude-dir=.git -e TODO .",
        "grep -c -w --color=never main README.md",
        "ls -lah --group-directories-first --time-style=long-iso",
        "head -n 20 -q README.md",
        "tail -n +5 -v README.md",
        "wc -lw README.md",
        "stat -c %s README.md",
        "cat -An README.md",
        "find . -maxdepth 2 -type f -name '*.md' -newer README.md -print0",
        "rg -n --hidden -g '!.git' -t py TODO",
    ],
)
def test_common_read_only_commands_stay_allowed(command: str) -> None:
    decision = check_command(READ_ONLY, command, cwd=CWD)
    assert decision.allowed, decision.reason


def test_every_read_only_executable_but_pwd_has_an_option_table() -> None:
    assert {name for name, _ in READ_ONLY_PRESET} - set(PROGRAMS) == {"pwd"}


# ---- allow-list prefixes on normalised arguments --------------------------------------------------

GREP_N = BashPolicy.model_validate(
    {
        "mode": "allow-list",
        "allow": [
            {"executable": "git", "argsPrefixes": [["grep", "-n"], ["log", "-n"]]},
            {"executable": "sort", "argsPrefix": ["-n"]},
        ],
    }
)


@pytest.mark.parametrize(
    ("command", "allowed", "why"),
    [
        ("git grep -n TODO", True, ""),
        ("git grep --line-number TODO", True, ""),
        ("git grep --line-n TODO", True, ""),
        ("git grep -nO'sh -c id' TODO", False, "-O (--open-files-in-pager)"),
        ("git grep -n --open=vim TODO", False, "--open (--open-files-in-pager)"),
        ("git grep --open=vim -n TODO", False, "matches no allowed form"),
        ("git grep -i TODO", False, "matches no allowed form"),
        ("git log -n 5", True, ""),
        ("git log -n5", True, ""),
        ("git log --max-count=5", True, ""),
        ("git log -n 5 --output=x", False, "--output writes a file"),
        ("sort -n data.txt", True, ""),
        ("sort --numeric-sort data.txt", True, ""),
        ("sort -no out.txt data.txt", False, "-o (--output) writes a file"),
        ("sort -n --compress-prog=gzip data.txt", False, "--compress-program"),
    ],
)
def test_argument_prefixes_compare_options_as_the_program_reads_them(command: str, allowed: bool, why: str) -> None:
    decision = check_command(GREP_N, command, cwd=CWD)
    assert decision.allowed is allowed, decision.reason
    assert why in decision.reason


# ---- the rules beyond the tables ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "allowed", "why"),
    [
        ("jq .env package.json", True, ""),
        ("jq '.[] | select(.name == \"env\")' package.json", True, ""),
        ("jq --arg env x '$env' package.json", True, ""),
        ("jq -n --rawfile notes notes.txt '$notes'", True, ""),
        ("jq -rn '$ ENV.GITHUB_TOKEN'", False, "$ENV"),
        ("jq -n '{$ENV}'", False, "$ENV"),
        ("jq -n '\"\\($ENV)\"'", False, "$ENV"),
        ("jq -n 'env | keys'", False, "uses env"),
        ("jq -n '$__loc__'", False, "$__loc__"),
        ("jq 'input_filename' package.json", False, "input_filename"),
        ("jq -n 'import \"x\" as x; 1'", False, "import"),
        ("jq -nf prog.jq", False, "-f (--from-file)"),
        ("jq --from-file prog.jq package.json", False, "--from-file"),
        ("jq -n '(1'", False, "could not read"),
        ("sed -n 1,5p notes.txt", True, ""),
        ("sed -e s/a/b/g -e 1d notes.txt", True, ""),
        ("sed -i s/a/b/ notes.txt", False, "-i (--in-place)"),
        ("sed -ni p notes.txt", False, "-i (--in-place)"),
        ("sed --in-pl=.bak p notes.txt", False, "--in-place"),
        ("sed 's/a/b/w out.txt' notes.txt", False, "s///w writes a file"),
        ("sed -e p -e 'w out.txt' notes.txt", False, "'w' writes a file"),
        ("sed --expr 'w out.txt' notes.txt", False, "'w' writes a file"),
        ("sed '1e id' notes.txt", False, "'e' runs a command"),
        ("sed 's/x/y/e' notes.txt", False, "s///e runs a command"),
        ("sed -f script.sed notes.txt", False, "-f (--file)"),
        ("awk '{print $1}' notes.txt", True, ""),
        ("awk -F: '$3 > 100 {print $1}' notes.txt", True, ""),
        ("awk 'BEGIN{system(\"id\")}'", False, "system"),
        ("awk '{print > \"out.txt\"}' notes.txt", False, "print >"),
        ("awk '{print | \"sh\"}' notes.txt", False, "|"),
        ("awk '{print ENVIRON[\"GITHUB_TOKEN\"]}' notes.txt", False, "ENVIRON"),
        ("awk -f prog.awk notes.txt", False, "-f (--file)"),
        ("awk -W exec prog.awk", False, "-W"),
        ("gawk --lo=x.so 1", False, "--load"),
        ("tar -tvf a.tar", True, ""),
        ("tar -tzf a.tgz", True, ""),
        ("tar --list --file=a.tar", True, ""),
        ("tar tvf a.tar", False, "old-style"),
        ("tar -xf a.tar", False, "-x (--extract) is not listing"),
        ("tar -tf backup:a.tar", False, "rsh/ssh"),
        ("tar --force-local -tf c:a.tar", True, ""),
        ("tar -tf a.tar -I ./unpack", False, "-I (--use-compress-program) runs a program"),
        ("gh pr view 1 --json title --jq '$ENV.GH_TOKEN'", False, "$ENV"),
        ("gh pr view 1 --json title -q .title", True, ""),
        ("gh api repos/o/r -q .name", True, ""),
        ("gh api -iXPOST repos/o/r/issues", False, "-X (--method)"),
        ("gh auth status -th github.com", False, "credentials"),
        ("git st", False, "not a git command the policy knows"),
        ("git help log", False, "viewer program"),
        ("git log --help", False, "viewer program"),
        ("git --no-pager log -n 3", True, ""),
        ("git -- grep -Ovim x", False, "no '--' before the subcommand"),
        ("git -C /tmp/elsewhere status", False, "-C points git at another repository"),
        ("git --git-dir=/tmp/x/.git status", False, "--git-dir"),
        ("git --exec-path=/tmp status", False, "--exec-path"),
        ("git -p log", False, "-p (--paginate) runs the pager"),
        ("git rebase -x 'make test' main", False, "-x (--exec)"),
        ("git archive --remote=origin HEAD", False, "--remote"),
        ("git cat-file --text HEAD:x", False, "--textconv"),
        ("git grep -e -O TODO", True, ""),
        ("git diff --text HEAD", True, ""),
        ("grep -rnf/proc/1/cmdline .", False, "/proc"),
        ("grep --fi x notes.txt", False, "ambiguous option --fi"),
        ("cat --frob notes.txt", False, "unknown option --frob"),
        ("ls --col -la", True, ""),
        ("less notes.txt", False, "'less' runs other commands"),
        ("man git", False, "'man' runs other commands"),
    ],
)
def test_program_rules_beyond_the_option_tables(command: str, allowed: bool, why: str) -> None:
    executable = shlex.split(command)[0]
    decision = check_command(policy_from_tools_bash([executable]), command, cwd=CWD)
    assert decision.allowed is allowed, decision.reason
    assert why in decision.reason


# ---- ported from codex's is_safe_command tests --------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["git", "log", "--output=/tmp/git-log-out-test", "-n", "1"],
        ["git", "diff", "--output", "/tmp/git-diff-out-test"],
        ["git", "show", "--output=/tmp/git-show-out-test", "HEAD"],
        ["git", "-c", "core.pager=cat", "log", "-n", "1"],
        ["git", "-ccore.pager=cat", "status"],
        ["find", ".", "-name", "file.txt", "-exec", "rm", "{}", ";"],
        ["find", ".", "-name", "*.py", "-execdir", "python3", "{}", ";"],
        ["find", ".", "-name", "file.txt", "-ok", "rm", "{}", ";"],
        ["find", ".", "-name", "*.py", "-okdir", "python3", "{}", ";"],
        ["find", ".", "-delete", "-name", "file.txt"],
        ["find", ".", "-fls", "/etc/passwd"],
        ["find", ".", "-fprint", "/etc/passwd"],
        ["find", ".", "-fprint0", "/etc/passwd"],
        ["find", ".", "-fprintf", "/root/suid.txt", "%#m %u %p\\n"],
        ["rg", "--search-zip", "files"],
        ["rg", "-z", "files"],
        ["rg", "--pre", "pwned", "files"],
        ["rg", "--pre=pwned", "files"],
        ["rg", "--hostname-bin", "pwned", "files"],
        ["rg", "--hostname-bin=pwned", "files"],
    ],
)
def test_codex_unsafe_examples_are_refused(argv: list[str]) -> None:
    policy = policy_from_tools_bash(["git", "find", "rg"])
    decision = check_command(policy, shlex.join(argv), cwd=CWD)
    assert not decision.allowed, argv


@pytest.mark.parametrize(
    "argv",
    [["git", "status"], ["find", ".", "-name", "file.txt"], ["rg", "Cargo.toml", "-n"], ["ls"]],
)
def test_codex_safe_examples_are_allowed_read_only(argv: list[str]) -> None:
    decision = check_command(READ_ONLY, shlex.join(argv), cwd=CWD)
    assert decision.allowed, decision.reason


def test_codex_first_positional_is_the_git_subcommand() -> None:
    decision = check_command(policy_from_tools_bash(["git status"]), "git checkout status", cwd=CWD)
    assert not decision.allowed and "matches no allowed form" in decision.reason


def test_a_value_is_read_as_a_value_not_an_option() -> None:
    read = normalise(["-e", "-O", "-A", "3", "--max-depth", "--open"], git.GREP)
    assert [(t.option, t.values) for t in read.tokens] == [
        ("-e", ("-O",)),
        ("--after-context", ("3",)),
        ("--max-depth", ("--open",)),
    ]
    assert read.problem is None


WORDS = st.text(alphabet="-=abcdefgilnopqrstuvxyzACEILOSX0159/.:$'\"()[]{}|>;#@\\ ", max_size=12)


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(PROGRAMS)), st.lists(WORDS, max_size=6), st.booleans())
def test_any_arguments_to_any_known_program_get_a_decision_never_an_exception(
    program: str, words: list[str], read_only: bool
) -> None:
    argv = [program, *words]
    policy = READ_ONLY if read_only else policy_from_tools_bash([program])
    decision = check_command(policy, shlex.join(argv), cwd=CWD)
    assert decision.allowed or decision.reason
