"""The launcher of the runner-side action (``runner/action.yml``, docs/toolchain.md): the step's
inputs as the container action gets them, then the harness in place of this process.

A composite action's steps get no ``INPUT_*`` variables (actions/runner issue #665: only the
``inputs`` context), so ``runner/action.yml`` hands every input over as one JSON object,
``AW_ACTION_INPUTS: ${{ toJSON(inputs) }}`` (the defaults of action.yml applied by the runner).
This module turns it into one ``INPUT_<NAME>`` per input, named as the runner names a container
action's (spaces to ``_``, upper case, hyphens kept: ``max-turns`` is ``INPUT_MAX-TURNS``), drops
``AW_ACTION_INPUTS`` and any other ``INPUT_*`` already there, and ``execve``s
``python -I -u -m aw_action action`` with the same interpreter: no shell and no launcher stays behind
holding the step's environment, and the harness is the step's one process (it makes itself
non-dumpable and wipes its initial environment: ``security/confinement/process_guard.py``).

The harness uploads no artifact here: a composite action's script steps get no
``ACTIONS_RUNTIME_TOKEN`` (actions/runner ``ScriptHandler``; only container and JavaScript actions
do). When ``upload-artifacts`` asks for it, the harness is told to stage the records instead
(``AW_ARTIFACT_STAGE``, ``$RUNNER_TEMP/aw-harness-artifact``: the files its own zip would hold,
through its redactor, no hidden file and no symlink, ``github/upload.py``) and
``runner/action.yml``'s next step uploads that folder with actions/upload-artifact; never the
output folder itself, where the agent may have left a symlink or a secret.

Standard library only and imports nothing of the harness. A missing or malformed
``AW_ACTION_INPUTS`` is one line naming it and exit 2; so is an input no environment variable can
carry (a NUL character, which a stranger's text interpolated into an input may hold) and an
environment ``execve`` refuses (a lone surrogate, which no file-system encoding spells).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import NoReturn

INPUTS_VARIABLE = "AW_ACTION_INPUTS"
EXIT_INPUT = 2
HARNESS_FLAGS = ("-I", "-u")
"""Isolated (the job's ``PYTHONPATH``, ``PYTHONHOME``, user site-packages and working directory,
the project's settings, never reach the harness's interpreter) and unbuffered (what the image's
``PYTHONUNBUFFERED=1`` does for the container action)."""
UPLOAD_INPUT = "upload-artifacts"
STAGE_VARIABLE = "AW_ARTIFACT_STAGE"
"""``environment/tuning.ARTIFACT_STAGE``'s name (this module imports nothing of the harness)."""
STAGE_FOLDER = "aw-harness-artifact"
"""Under ``$RUNNER_TEMP``: the folder runner/action.yml's upload step uploads."""


def input_variable(name: str) -> str:
    """The runner's name for input ``name`` (actions/runner ``Handler.AddInputsToEnvironment``)."""
    return "INPUT_" + name.replace(" ", "_").upper()


def harness_environment(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with ``AW_ACTION_INPUTS`` turned into the ``INPUT_*`` variables; ``ValueError``
    (its message names the variable) when it is missing or not a JSON object of strings."""
    raw = env.get(INPUTS_VARIABLE)
    if raw is None:
        raise ValueError(f"{INPUTS_VARIABLE} is not set: runner/action.yml passes the inputs through it")
    try:
        inputs = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{INPUTS_VARIABLE} is not JSON: {exc.msg} at character {exc.pos}") from None
    except RecursionError:
        raise ValueError(f"{INPUTS_VARIABLE} is nested too deeply to be the inputs") from None
    if not isinstance(inputs, dict):
        raise ValueError(f"{INPUTS_VARIABLE} is not a JSON object of the inputs")
    out = {k: v for k, v in env.items() if k != INPUTS_VARIABLE and not k.upper().startswith("INPUT_")}
    for name, value in inputs.items():
        if isinstance(value, bool):  # a boolean input's default, as the runner serialises it
            value = "true" if value else "false"
        elif value is None:
            value = ""
        elif not isinstance(value, str):
            value = json.dumps(value)
        variable = input_variable(str(name))
        _check_carriable(str(name), variable, value)
        out[variable] = value
    out.pop(STAGE_VARIABLE, None)
    if out.get(input_variable(UPLOAD_INPUT)) == "true" and env.get("RUNNER_TEMP"):
        out[STAGE_VARIABLE] = os.path.join(env["RUNNER_TEMP"], STAGE_FOLDER)
    else:
        out[input_variable(UPLOAD_INPUT)] = "false"  # nowhere to stage: the harness cannot upload here
    return out


def _check_carriable(name: str, variable: str, value: str) -> None:
    """``ValueError`` naming the input when no environment variable can hold ``value``."""
    if "\0" in variable or "=" in variable or "\0" in value:
        raise ValueError(
            f"input {name!r} holds a NUL character (or its name an '='): no environment variable can carry it"
        )


REFUSED_OUTPUTS = {"exit-code": str(EXIT_INPUT), "conclusion": "failure", "stop-reason": "invocation_error"}
"""What a refused invocation's step outputs say, as the container action's do."""


def refuse(message: str, env: Mapping[str, str]) -> NoReturn:
    """The launcher cannot start the harness: one line on stderr, the step's outputs and a summary
    line saying so (as the harness says a refused invocation), exit 2."""
    line = f"aw-harness runner launcher: {message}"
    sys.stderr.write(f"::error::{line}\n")
    for variable, text in (
        ("GITHUB_OUTPUT", "".join(f"{name}={value}\n" for name, value in REFUSED_OUTPUTS.items())),
        ("GITHUB_STEP_SUMMARY", f"## ❌ Failure · The run could not start\n\n{line}\n"),
    ):
        if env.get(variable):
            try:
                with open(env[variable], "a", encoding="utf-8") as handle:
                    handle.write(text)
            except OSError:
                pass  # the line on stderr still says it
    raise SystemExit(EXIT_INPUT)


def main() -> None:
    try:
        env = harness_environment(os.environ)
    except ValueError as exc:
        refuse(str(exc), os.environ)
    try:
        os.execve(sys.executable, [sys.executable, *HARNESS_FLAGS, "-m", "aw_action", "action"], env)
    except (OSError, ValueError) as exc:  # a value the file-system encoding cannot spell; E2BIG
        refuse(f"cannot start the harness with these inputs: {exc}", os.environ)


if __name__ == "__main__":
    main()
