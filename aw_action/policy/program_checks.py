"""Per-program rules in restricted modes: how each known program's arguments are read (its option
table) and what else about them is refused (a jq filter, a sed script, tar's operation, gh's
API method). ``PROGRAMS`` is the one registry; a program not in it has its arguments compared
as written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from aw_action.lazy_dataclass import dataclass
from aw_action.policy import option_tables as tables
from aw_action.policy.git_options import read_git
from aw_action.policy.options import Normalised, OptionSpec, Token, normalise
from aw_action.policy.programs import awk_program_reason, jq_program_reason, sed_script_reason


@dataclass(frozen=True)
class Program:
    read: Callable[[Sequence[str]], Normalised]
    """The arguments (without the program name) as the program reads them."""
    check: Callable[[Normalised], str | None] | None = None
    """What else is refused, beyond the options the table refuses."""


def _first_operand(normalised: Normalised) -> list[str]:
    return normalised.operands()[:1]


def _check_jq(normalised: Normalised) -> str | None:
    """jq's filter is its first operand (jq 1.6 and 1.7 ``main.c``), even after ``--``."""
    return next((r for p in _first_operand(normalised) if (r := jq_program_reason(p))), None)


def _scripts(normalised: Normalised, inline: str, from_file: str) -> list[str]:
    """sed's and awk's program texts: every ``inline`` value, else the first operand (a program
    read from a file is refused by the table)."""
    given = [t.value or "" for t in normalised.options(inline)]
    if given or normalised.options(from_file):
        return given
    return _first_operand(normalised)


def _check_sed(normalised: Normalised) -> str | None:
    scripts = _scripts(normalised, "--expression", "--file")
    return next((r for s in scripts if (r := sed_script_reason(s))), None)


def _check_awk(normalised: Normalised) -> str | None:
    scripts = _scripts(normalised, "--source", "--file")
    return next((r for s in scripts if (r := awk_program_reason(s))), None)


def _check_tar(normalised: Normalised) -> str | None:
    first = normalised.tokens[0] if normalised.tokens else None
    if first is not None and first.option is None and first.raw.isalpha():
        return f"tar {first.raw!r}: old-style bundled options (write them with a dash, e.g. -{first.raw})"
    if normalised.options("--force-local"):
        return None
    for archive in normalised.options("--file"):
        name = archive.value or ""
        if ":" in name.split("/", 1)[0]:
            return (
                f"tar -f {name!r}: a host:file archive is opened through rsh/ssh (add --force-local for a local file)"
            )
    return None


def _find(args: Sequence[str]) -> Normalised:
    """find's primaries are whole words (findutils ``parser.c``): no clusters, no abbreviations."""
    tokens = tuple(Token(None, (a,), a) for a in args)
    hit = next((a for a in args if a in tables.FIND_REFUSED), None)
    return Normalised(tokens, f"find {hit} {tables.FIND_REFUSED[hit]}" if hit else None, len(args))


def _read_gh(program: str) -> Callable[[Sequence[str]], Normalised]:
    def read(args: Sequence[str]) -> Normalised:
        spec = tables.GH_API if list(args[:1]) == ["api"] else tables.GH_ANY
        body = normalise(args[1:], spec)
        tokens = (*(Token(None, (a,), a) for a in args[:1]), *body.tokens)
        return Normalised(tokens, body.problem, len(args))

    return read


def _check_gh(program: str) -> Callable[[Normalised], str | None]:
    """``gh``/``glab``: extensions and shell aliases run code, ``auth`` shows or changes
    credentials, and ``--jq`` filters run with the process environment (go-gh ``pkg/jq``)."""

    def check(normalised: Normalised) -> str | None:
        words = [t.raw for t in normalised.tokens]
        if not words:
            return None
        if words[0] in ("extension", "extensions", "ext", "alias"):
            return f"{program} {words[0]} can install or run arbitrary programs"
        if words[0] == "auth" and (words[1:2] != ["status"] or _shows_token(words[2:])):
            return f"{program} auth can print or change credentials"
        for token in normalised.options("--jq"):
            reason = jq_program_reason(token.value or "")
            if reason:
                return f"{program} --jq: {reason}"
        return None

    return check


def _shows_token(args: Sequence[str]) -> bool:
    return any(a.startswith("--sh") or (a.startswith("-") and not a.startswith("--") and "t" in a) for a in args)


def _table(spec: OptionSpec) -> Callable[[Sequence[str]], Normalised]:
    return partial(normalise, spec=spec)


PROGRAMS: dict[str, Program] = {
    **{name: Program(_table(spec)) for name, spec in tables.SPECS.items()},
    "jq": Program(_table(tables.JQ), _check_jq),
    "sed": Program(_table(tables.SED), _check_sed),
    "tar": Program(_table(tables.TAR), _check_tar),
    **{name: Program(_table(tables.AWK), _check_awk) for name in ("awk", "gawk", "mawk", "nawk")},
    "find": Program(_find),
    "git": Program(read_git),
    "gh": Program(_read_gh("gh"), _check_gh("gh")),
    "glab": Program(_read_gh("glab"), _check_gh("glab")),
}
"""Every program the restricted modes read option by option, by executable name."""
