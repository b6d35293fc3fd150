"""Arguments read the way the program's own option parser reads them.

An exact-spelling check misses ``git grep -nO'sh -c id'``, ``git grep --open=vim`` and
``sort --compress-prog=sh``: a short option that takes a value swallows the rest of its cluster,
and both GNU ``getopt_long`` (gnulib/glibc ``process_long_option``: an exact name first, then any
unique prefix) and git's parse-options (``parse_long_opt``: unique prefixes, ``--no-`` forms)
accept abbreviated long options. ``normalise`` turns arguments into ``Token``s with canonical
option names from one ``OptionSpec`` per program (built with ``table``; the tables live in
``option_tables`` and ``git_options``), so every check compares canonical names.

Safety does not rest on a table being complete:
- an argument that is a prefix of a refused long option is refused whether or not the program
  abbreviates (``--compress-prog``, ``--open``, ``--ext``);
- a following word is taken as a value only when the table says the option takes one, so a
  missing table entry makes the check look at more words, never fewer;
- where a table is ``complete`` (every option the program has), an unknown or ambiguous option is
  refused instead of guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from enum import Enum

from aw_action.lazy_dataclass import dataclass


class Arity(Enum):
    NONE = "none"
    REQUIRED = "required"
    """Attached (``-xVALUE``, ``--name=VALUE``) or the next word."""
    OPTIONAL = "optional"
    """Attached only (``-O[pager]``, ``--color[=when]``)."""
    PAIR = "pair"
    """The next two words (``jq --arg NAME VALUE``)."""


@dataclass(frozen=True)
class Option:
    name: str
    """Canonical spelling: the first long name (``--output``), else the short one (``-I``)."""
    arity: Arity
    refused: str | None = None
    """Why restricted modes refuse the option, as a verb phrase (``runs a program``)."""


@dataclass(frozen=True)
class Token:
    """One option (canonical ``option`` and its ``values``) or one operand (``option`` None)."""

    option: str | None
    values: tuple[str, ...]
    raw: str

    @property
    def value(self) -> str | None:
        return self.values[-1] if self.values else None


@dataclass(frozen=True)
class OptionSpec:
    """How one program (or git subcommand) reads its options.

    ``abbreviations``: unique prefixes of long options are accepted (getopt_long, parse-options).
    ``complete``: ``long`` and ``short`` list every option the program has, so anything else is
    refused. ``digits``: ``-NUM`` is an option (``grep -5``, ``head -20``). ``alpha_options``:
    only ``-`` followed by a letter or ``-`` is an option (jq's ``isoptish``; ``jq -1`` is a
    program)."""

    program: str
    short: Mapping[str, Option]
    long: Mapping[str, Option]
    abbreviations: bool = True
    complete: bool = True
    digits: bool = False
    alpha_options: bool = False

    def is_option(self, arg: str) -> bool:
        if len(arg) < 2 or arg[0] != "-":
            return False
        return not self.alpha_options or arg[1] == "-" or arg[1].isalpha()

    def refused_options(self) -> tuple[Option, ...]:
        return tuple(dict.fromkeys(o for o in [*self.short.values(), *self.long.values()] if o.refused))


@dataclass(frozen=True)
class Normalised:
    tokens: tuple[Token, ...]
    problem: str | None = None
    """The first reason to refuse the arguments, naming the option as written and canonically."""
    consumed: int = 0
    """How many arguments were read (fewer than all only with ``stop_at_operand``)."""

    def options(self, *names: str) -> list[Token]:
        return [t for t in self.tokens if t.option is not None and t.option in names]

    def operands(self) -> list[str]:
        return [t.values[0] for t in self.tokens if t.option is None]


def table(
    program: str,
    text: str,
    refused: Mapping[str, str] | None = None,
    *,
    negations: bool = False,
    **flags: bool,
) -> OptionSpec:
    """An ``OptionSpec`` from a compact table: whitespace-separated entries, each the spellings of
    one option joined by ``|`` (``-e|--regexp``), ending in ``=`` (takes a value), ``[=]`` (takes
    an attached value only) or ``=2`` (takes two words). ``refused`` maps canonical names to why
    they are refused; ``negations`` adds git's ``--no-NAME`` for every long option.
    Raises ``ValueError`` for a malformed table (a programming error, caught at import)."""
    reasons = dict(refused or {})
    short: dict[str, Option] = {}
    long: dict[str, Option] = {}
    for entry in text.split():
        word, arity = _arity(entry)
        names = word.split("|")
        longs = [n[2:] for n in names if n.startswith("--")]
        shorts = [n[1:] for n in names if not n.startswith("--")]
        if any(not n.startswith("-") for n in names) or any(len(s) != 1 for s in shorts) or "" in longs:
            raise ValueError(f"{program}: malformed option entry {entry!r}")
        canonical = f"--{longs[0]}" if longs else f"-{shorts[0]}"
        option = Option(canonical, arity, reasons.pop(canonical, None))
        for key, target in [*((s, short) for s in shorts), *((n, long) for n in longs)]:
            if key in target:
                raise ValueError(f"{program}: option {key!r} listed twice")
            target[key] = option
    if reasons:
        raise ValueError(f"{program}: refused options not in the table: {sorted(reasons)}")
    if negations:
        for name in list(long):
            long.setdefault(f"no-{name}", Option(f"--no-{name}", Arity.NONE))
    return OptionSpec(program, short, long, **flags)


def _arity(entry: str) -> tuple[str, Arity]:
    for suffix, arity in (("[=]", Arity.OPTIONAL), ("=2", Arity.PAIR), ("=", Arity.REQUIRED)):
        if entry.endswith(suffix):
            return entry[: -len(suffix)], arity
    return entry, Arity.NONE


@dataclass
class _Reader:
    spec: OptionSpec
    args: Sequence[str]
    index: int = 0
    tokens: list[Token] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def take(self, count: int) -> tuple[str, ...]:
        taken = tuple(self.args[self.index : self.index + count])
        self.index += len(taken)
        return taken

    def emit(self, option: Option | None, spelled: str, values: tuple[str, ...], raw: str) -> None:
        name = option.name if option else spelled
        self.tokens.append(Token(name, values, raw))
        if option is not None and option.refused:
            shown = name if spelled == name else f"{spelled} ({name})"
            self.problem(raw, f"{shown} {option.refused}")

    def problem(self, raw: str, why: str) -> None:
        self.problems.append(f"{self.spec.program} {raw!r}: {why}")


def normalise(args: Sequence[str], spec: OptionSpec, *, stop_at_operand: bool = False) -> Normalised:
    """Read ``args`` as ``spec``'s program would (options permuted among operands, ``--`` ends
    them; with ``stop_at_operand`` reading stops before the first operand, as git's global
    options do). Never raises; the first refusal reason, if any, is ``problem``."""
    reader = _Reader(spec, args)
    while reader.index < len(args):
        arg = args[reader.index]
        if stop_at_operand and not spec.is_option(arg):
            break
        reader.index += 1
        if arg == "--":
            reader.tokens.append(Token("--", (), arg))
            reader.tokens.extend(Token(None, (rest,), rest) for rest in reader.take(len(args)))
        elif arg.startswith("--") and spec.is_option(arg):
            _read_long(reader, arg)
        elif spec.is_option(arg):
            _read_cluster(reader, arg)
        else:
            reader.tokens.append(Token(None, (arg,), arg))
    return Normalised(tuple(reader.tokens), reader.problems[0] if reader.problems else None, reader.index)


def _read_long(reader: _Reader, arg: str) -> None:
    spec = reader.spec
    name, eq, attached = arg[2:].partition("=")
    option = spec.long.get(name)
    exact = option is not None
    if option is None:
        option = _abbreviated(reader, arg, name)
    if option is None:
        reader.tokens.append(Token(f"--{name}", (attached,) if eq else (), arg))
        return
    values: tuple[str, ...] = (attached,) if eq else ()
    if not eq and option.arity is Arity.REQUIRED and (exact or spec.complete):
        values = reader.take(1)
    elif option.arity is Arity.PAIR and (exact or spec.complete):
        values = values + reader.take(2 - len(values))
    reader.emit(option, f"--{name}", values, arg)


def _abbreviated(reader: _Reader, arg: str, name: str) -> Option | None:
    """The option ``--name`` abbreviates; refused ones first, whatever the program's rules."""
    spec = reader.spec
    refused = sorted({o.name for key, o in spec.long.items() if o.refused and key.startswith(name)})
    if refused:
        target = spec.long[refused[0][2:]]
        if len(refused) == 1:
            return target
        reader.problem(arg, f"could abbreviate {' or '.join(refused)}, which restricted modes refuse")
        return None
    if not spec.abbreviations:
        if spec.complete:
            reader.problem(arg, f"unknown option --{name}")
        return None
    matches = {o.name: o for key, o in spec.long.items() if key.startswith(name)}
    if len(matches) == 1 and spec.complete:
        return next(iter(matches.values()))
    if len(matches) > 1:
        reader.problem(arg, f"ambiguous option --{name} (could be {', '.join(sorted(matches))}); spell it out")
    elif spec.complete:
        reader.problem(arg, f"unknown option --{name}")
    return None


def _read_cluster(reader: _Reader, arg: str) -> None:
    spec = reader.spec
    position = 1
    while position < len(arg):
        letter = arg[position]
        position += 1
        option = spec.short.get(letter)
        if option is None:
            if spec.complete and not (spec.digits and letter.isdigit()):
                reader.problem(arg, f"unknown option -{letter}")
            reader.tokens.append(Token(f"-{letter}", (), arg))
            continue
        values: tuple[str, ...] = ()
        if option.arity is not Arity.NONE:
            rest, position = arg[position:], len(arg)
            values = (rest,) if rest else ()
            if option.arity is Arity.REQUIRED and not rest:
                values = reader.take(1)
            elif option.arity is Arity.PAIR:
                values = values + reader.take(2 - len(values))
        reader.emit(option, f"-{letter}", values, arg)
