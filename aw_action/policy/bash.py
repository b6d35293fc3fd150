"""The bash policy: which commands a restricted agent may run, decided before the command runs.

Modes (pi-workflows' four):
- ``deny`` (the default): no command runs.
- ``read-only``: the inspection preset in ``bash_rules.READ_ONLY_PRESET``.
- ``allow-list``: an executable plus optional argument prefixes; rules are OR alternatives and
  ``argsPrefixes`` lists OR alternatives for one executable (``argsPrefix: [status, diff]`` is
  the literal sequence ``status diff``).
- ``unrestricted``: anything bash accepts (the command is not even parsed).

The restricted modes (``read-only``, ``allow-list``) accept only one simple command of literal
words (``shell_words.parse_argv``), never a wrapper that runs other programs, an environment
printer, a path-qualified executable that no rule names exactly, an option that turns a tool
into an executor or a writer, however it is spelled (``program_checks.PROGRAMS``: clusters,
abbreviations, ``--opt=value``), or a path into ``/proc``. Argument prefixes are compared on
the arguments as the program reads them, so ``git grep -n`` also matches ``--line-number`` and a
prefix never hides an option inside a cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from aw_action.lazy_dataclass import dataclass
from aw_action.policy import bash_rules
from aw_action.policy.options import Normalised, Token
from aw_action.policy.program_checks import PROGRAMS, Program
from aw_action.policy.shell_words import CommandRejected, parse_argv

BashMode = Literal["deny", "read-only", "allow-list", "unrestricted"]
EXECUTABLE_PATTERN = r"^[A-Za-z0-9_./+-]+$"
ARG_PATTERN = r"^\S+$"


class BashRule(BaseModel):
    """One allow-list alternative: ``executable`` with ``argsPrefix`` or any of ``argsPrefixes``
    (mutually exclusive; neither means any arguments)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    executable: str = Field(pattern=EXECUTABLE_PATTERN)
    args_prefix: tuple[str, ...] | None = Field(default=None, alias="argsPrefix")
    args_prefixes: tuple[tuple[str, ...], ...] | None = Field(default=None, alias="argsPrefixes", min_length=1)

    @model_validator(mode="after")
    def _one_prefix_form(self) -> BashRule:
        if self.args_prefix is not None and self.args_prefixes is not None:
            raise ValueError("argsPrefix and argsPrefixes are mutually exclusive")
        for prefix in self.prefixes():
            if any(not arg or any(ch.isspace() for ch in arg) for arg in prefix):
                raise ValueError("prefix arguments must be non-empty and contain no whitespace")
        if self.args_prefixes is not None and any(not p for p in self.args_prefixes):
            raise ValueError("every argsPrefixes alternative needs at least one argument")
        return self

    def prefixes(self) -> tuple[tuple[str, ...], ...]:
        if self.args_prefixes is not None:
            return self.args_prefixes
        return (self.args_prefix or (),)

    def matches(self, argv: list[str]) -> bool:
        if argv[0] != self.executable:
            return False
        return any(tuple(argv[1 : 1 + len(p)]) == p for p in self.prefixes())


class BashPolicy(BaseModel):
    """A step's (or a run's) bash permission; the default denies every command."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    mode: BashMode = "deny"
    allow: tuple[BashRule, ...] = ()

    @model_validator(mode="after")
    def _rules_only_for_allow_list(self) -> BashPolicy:
        if self.mode == "allow-list" and not self.allow:
            raise ValueError("allow-list mode needs at least one allow rule")
        if self.mode != "allow-list" and self.allow:
            raise ValueError("allow rules are only valid in allow-list mode")
        return self

    def rules(self) -> tuple[BashRule, ...]:
        if self.mode == "read-only":
            return READ_ONLY_RULES
        return self.allow


READ_ONLY_RULES = tuple(
    BashRule(executable=name, args_prefixes=prefixes if prefixes != ((),) else None)
    for name, prefixes in bash_rules.READ_ONLY_PRESET
)


@dataclass(frozen=True)
class BashDecision:
    """``allowed`` with the parsed ``argv`` (empty in unrestricted mode), or the ``reason``."""

    allowed: bool
    reason: str = ""
    argv: tuple[str, ...] = ()


def _reject(reason: str) -> BashDecision:
    return BashDecision(False, reason)


def check_command(
    policy: BashPolicy, command: str, cwd: str | None = None, variables: Mapping[str, str] | None = None
) -> BashDecision:
    """Decide whether ``command`` may run under ``policy``. Never raises for any input string.

    ``cwd`` is where the command would run; paths are resolved against it (default: the
    process's working directory) to keep ``/proc`` out of reach. ``variables``: non-secret
    environment variables a restricted command may use as ``"$NAME"`` (see ``parse_argv``)."""
    if policy.mode == "unrestricted":
        return BashDecision(True)
    if policy.mode == "deny":
        return _reject("bash is not allowed here (mode: deny)")
    try:
        argv = parse_argv(command, variables)
    except CommandRejected as exc:
        return _reject(f"{exc} (mode {policy.mode} runs one simple command of literal words)")
    except Exception as exc:  # a parser failure is a rejection, never an allowance
        return _reject(f"the command could not be parsed ({type(exc).__name__})")
    program = argv[0]
    base = program.rsplit("/", 1)[-1]
    rules = policy.rules()
    if "/" in program and not any(rule.executable == program for rule in rules):
        return _reject(f"{program!r}: path-qualified executables are not allowed; use a bare name from the allow-list")
    if base in bash_rules.WRAPPERS:
        return _reject(f"{base!r} runs other commands, which restricted modes never allow")
    if base in bash_rules.ENVIRONMENT_PRINTERS:
        return _reject(f"{base!r} prints the environment, which holds the run's tokens")
    if not any(rule.executable == program for rule in rules):
        allowed = ", ".join(sorted({rule.executable for rule in rules}))
        return _reject(f"{program!r} is not an allowed executable (allowed: {allowed})")
    known = PROGRAMS.get(base)
    normalised = known.read(argv[1:]) if known else None
    if not any(_matches(rule, argv, known, normalised) for rule in rules):
        options = [" ".join([program, *p]) for rule in rules if rule.executable == program for p in rule.prefixes()]
        return _reject(f"{' '.join(argv[:3])!r} matches no allowed form (allowed: {'; '.join(options)})")
    reason = _option_reason(known, normalised) or bash_rules.proc_path_reason(_path_arguments(argv, normalised), cwd)
    if reason:
        return _reject(reason)
    return BashDecision(True, argv=tuple(argv))


def _matches(rule: BashRule, argv: list[str], known: Program | None, normalised: Normalised | None) -> bool:
    """``rule`` allows ``argv``: the same executable, and one of its prefixes, read the way the
    program reads its arguments when the policy knows the program, leads the arguments."""
    if known is None or normalised is None:
        return rule.matches(argv)
    return argv[0] == rule.executable and any(
        _leads(known.read(prefix).tokens, normalised.tokens) for prefix in rule.prefixes()
    )


def _leads(prefix: tuple[Token, ...], tokens: tuple[Token, ...]) -> bool:
    """``prefix`` is the start of ``tokens``; its last option may omit the values that follow
    (``git log -n`` leads ``git log -n 5``)."""
    if len(prefix) > len(tokens):
        return False
    for index, (want, have) in enumerate(zip(prefix, tokens, strict=False)):
        if want.option != have.option:
            return False
        last = index == len(prefix) - 1
        if want.values != have.values and not (last and have.values[: len(want.values)] == want.values):
            return False
    return True


def _option_reason(known: Program | None, normalised: Normalised | None) -> str | None:
    if known is None or normalised is None:
        return None
    return normalised.problem or (known.check(normalised) if known.check else None)


def _path_arguments(argv: list[str], normalised: Normalised | None) -> list[str]:
    """Every argument, and every option value as the program reads it (``-nf/proc/x``)."""
    values = [v for t in normalised.tokens if t.option for v in t.values] if normalised else []
    return [*argv[1:], *values]


def policy_from_tools_bash(value: list[str] | bool | None) -> BashPolicy:
    """The single-session mapping of config.json ``tools.bash``.

    ``true``, ``"*"`` or ``":*"`` → unrestricted; ``false`` or ``[]`` → deny; a list → allow-list
    where ``"grep"`` or ``"git:*"`` allows the executable with any arguments and ``"git status"``
    allows that exact argument prefix (gh-aw's spellings). ``None`` (key absent) keeps today's
    behaviour, unrestricted; the caller decides whether that default should change.
    Raises ``ValueError`` naming a malformed entry."""
    if value is None or value is True:
        return BashPolicy(mode="unrestricted")
    if value is False or value == []:
        return BashPolicy(mode="deny")
    if not isinstance(value, list):
        raise ValueError("tools.bash must be true, false or a list of commands")
    rules: dict[str, list[tuple[str, ...]]] = {}
    for entry in value:
        if not isinstance(entry, str) or not entry.strip():
            raise ValueError(f"tools.bash entry {entry!r} must be a non-empty string")
        text = entry.strip()
        if text in ("*", ":*"):
            return BashPolicy(mode="unrestricted")
        if text.endswith(":*"):
            text = text[:-2]
        try:
            words = parse_argv(text)
        except CommandRejected as exc:
            raise ValueError(f"tools.bash entry {entry!r}: {exc}") from None
        rules.setdefault(words[0], []).append(tuple(words[1:]))
    built = []
    for executable, prefixes in rules.items():
        if () in prefixes:
            built.append(BashRule(executable=executable))
        else:
            built.append(BashRule(executable=executable, args_prefixes=tuple(dict.fromkeys(prefixes))))
    return BashPolicy(mode="allow-list", allow=tuple(built))
