"""action.yml's inputs, read at run time: the one list of the action's inputs.

``aw-harness action --help`` lists them and the entrypoint warns about an ``INPUT_*`` variable
that names none of them (``unknown_inputs``: a misspelt ``with:`` key, such as ``max-turn``, is
otherwise silently ignored), and about an input whose default is an expression the runner did not
evaluate (``defaults_not_applied``: a ``uses: docker://`` step has no action.yml, so the runner
sets no variable for an input the workflow did not give; the harness applies the literal defaults
itself, but not ``github-token``'s ``${{ github.token }}``: docs/toolchain.md).

The wheel carries a copy of the repository's action.yml as
``aw_action/action.yml`` (pyproject.toml's ``force-include``); a source checkout reads the
repository's own. ``ActionInputs`` declares the same names (tests/action/test_packaging.py).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path

from aw_action.github.action_inputs import env_name
from aw_action.lazy_dataclass import dataclass

_PACKAGE = Path(__file__).resolve().parent.parent
CANDIDATES = (_PACKAGE / "action.yml", _PACKAGE.parent / "action.yml")
"""The wheel's copy first, then a source checkout's action.yml."""
NEAR_MISS_CUTOFF = 0.6
"""How alike (difflib's ratio) an unknown input must be to a declared one to be named as its
likely spelling: ``max-turn`` (0.94), ``promt`` (0.91), ``timeout`` for ``timeout-minutes`` (0.64)."""


class ManifestError(Exception):
    """action.yml cannot be found or read; the message names the file."""


@dataclass(frozen=True)
class ActionInput:
    name: str
    description: str
    default: str = ""

    @property
    def variable(self) -> str:
        return env_name(self.name)


def manifest_path() -> Path:
    for path in CANDIDATES:
        if path.is_file():
            return path
    raise ManifestError(f"action.yml is not in this install (looked for {', '.join(map(str, CANDIDATES))})")


def action_inputs(path: Path | None = None) -> list[ActionInput]:
    """The inputs in action.yml's order."""
    from ruamel.yaml import YAML  # only on --help and in the action's entrypoint
    from ruamel.yaml.error import YAMLError

    path = path or manifest_path()
    try:
        data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError) as exc:
        raise ManifestError(f"{path}: cannot be read: {exc}") from None
    inputs = data.get("inputs") if isinstance(data, dict) else None
    if not isinstance(inputs, dict):
        raise ManifestError(f"{path}: has no inputs")
    return [
        ActionInput(str(name), " ".join(str(spec.get("description") or "").split()), str(spec.get("default") or ""))
        for name, spec in inputs.items()
        if isinstance(spec, dict)
    ]


@dataclass(frozen=True)
class UnknownInput:
    variable: str
    likely: ActionInput | None

    def message(self) -> str:
        text = f"{self.variable} is not an input of this action (action.yml), so it is ignored"
        if self.likely is None:
            return f"{text}; aw-harness action --help lists the inputs"
        return f"{text}; did you mean '{self.likely.name}' ({self.likely.variable})?"


def unknown_inputs(env: Mapping[str, str], inputs: list[ActionInput]) -> list[UnknownInput]:
    """Every ``INPUT_*`` variable that is no declared input, with the input it most likely meant.
    Names are compared as the runner makes them (upper-cased, hyphens kept); values are never read."""
    declared = {i.variable.upper(): i for i in inputs}
    by_name = {i.name: i for i in inputs}
    found = []
    for variable in sorted(env):
        if not variable.upper().startswith("INPUT_") or variable.upper() in declared:
            continue
        spelt = variable[len("INPUT_") :].lower().replace("_", "-")
        match = difflib.get_close_matches(spelt, list(by_name), n=1, cutoff=NEAR_MISS_CUTOFF)
        found.append(UnknownInput(variable, by_name[match[0]] if match else None))
    return found


@dataclass(frozen=True)
class DefaultNotApplied:
    input: ActionInput

    def message(self) -> str:
        return (
            f"{self.input.variable} is not set at all, so action.yml's default ({self.input.default}) did not apply: "
            f"a `uses: docker://` step gets none of its defaults; set '{self.input.name}' in the step's `with:` "
            "(docs/toolchain.md)"
        )


def defaults_not_applied(env: Mapping[str, str], inputs: list[ActionInput]) -> list[DefaultNotApplied]:
    """Every input whose default is an expression (``${{ github.token }}``) and whose ``INPUT_*``
    variable is absent, not merely empty: the runner sets every declared input of an action it
    read action.yml for, so such an input means a step that has none (``uses: docker://``)."""
    present = {name.upper() for name in env}
    return [DefaultNotApplied(i) for i in inputs if "${{" in i.default and i.variable.upper() not in present]
