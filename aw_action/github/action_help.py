"""``aw-harness action --help``: how the entrypoint is called, and its inputs as action.yml lists them."""

from __future__ import annotations

import textwrap

from aw_action.environment.runner import OUTPUT_VAR, STEP_SUMMARY_VAR
from aw_action.environment.tuning import FAUX_SCRIPT
from aw_action.github.action_manifest import ActionInput

WIDTH = 100
INDENT = "      "

USAGE = f"""\
usage: aw-harness action        (no arguments: inputs come from INPUT_* variables)

The GitHub Action's entrypoint (the container runs it): one agent session, or with mode: apply the
safe outputs a run recorded. The runner passes each input as INPUT_<NAME>, upper-cased with its
hyphens kept (max-turns -> INPUT_MAX-TURNS); a shell cannot export such a name, env(1) can:

  env INPUT_PROMPT='List the files.' INPUT_MODEL=faux/scripted {FAUX_SCRIPT.name}=script.json \\
      INPUT_UPLOAD-ARTIFACTS=false aw-harness action

Step outputs go to ${OUTPUT_VAR}, the step summary to ${STEP_SUMMARY_VAR} (each when set); an
INPUT_* variable that names no input is warned about. For a local run, aw-harness --config CONFIG
--prompt PROMPT is the command line's own way (aw-harness --help).

inputs (action.yml; blank means not set):
"""

EPILOG = """
exit codes: 0 completed (or skipped by the trigger guard), 1 session failure, 2 invocation error
docs: docs/action-reference.md
"""


def action_help(inputs: list[ActionInput]) -> str:
    lines = [USAGE]
    for each in inputs:
        default = f" (default: {each.default})" if each.default else ""
        lines.append(f"  {each.name}  [{each.variable}]{default}\n")
        lines.append(textwrap.fill(each.description, WIDTH, initial_indent=INDENT, subsequent_indent=INDENT) + "\n")
    lines.append(EPILOG)
    return "".join(lines)
