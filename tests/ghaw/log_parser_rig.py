"""The definition's ``log-parser`` as gh-aw runs it, over a step's output as gh-aw captures it.

gh-aw writes the parser to ``${RUNNER_TEMP}/gh-aw/actions/<id>_log_parser.cjs``, wrapped by
``buildWrappedLogParserScript`` (gh-aw ``pkg/workflow/behavior_defined_engine.go`` @4ade037): a
``require("./log_parser_shared.cjs")`` of its bootstrap, the definition's ``parseLog``, then
``module.exports = { main, parseLog }``. ``parsed`` writes that very module next to a one-line
``log_parser_shared.cjs`` (gh-aw's bootstrap is not ours to ship: it only has to load), requires
it under node and calls ``parseLog`` on the log. ``captured_step`` runs the engine command the way
the compiled agent step does: the start file, then ``<command> 2>&1 | tee -a agent-stdio.log``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.awf.rig import AgentStep, engine_command, frontmatter

LOG_PARSER_DELIMITER = "GHAW_LOG_PARSER_SCRIPT_5d2e8b3f_EOF"
"""gh-aw's heredoc delimiter for the parser script: a parser that holds it is silently dropped."""
WRAPPER = """// @ts-check
// Auto-generated log parser for behavior-defined engine "{name}".
const {{ createEngineLogParser }} = require("./log_parser_shared.cjs");

// --- begin engine-provided parse function ---
{source}
// --- end engine-provided parse function ---

const main = createEngineLogParser({{
  parserName: "{name}",
  parseFunction: parseLog,
  supportsDirectories: false,
}});

if (typeof module !== "undefined" && module.exports) {{
  module.exports = {{ main, parseLog }};
}}
"""
RUNNER = """const fs = require("fs");
const { parseLog } = require(process.argv[2]);
process.stdout.write(JSON.stringify(parseLog(fs.readFileSync(process.argv[3], "utf8"))));
"""


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed: gh-aw runs the log parser under node (CI's machine has node 20)")
    return found


def parser_source() -> str:
    source: str = frontmatter()["engine"]["behaviors"]["log-parser"]
    return source


def parsed(log: Path, work: Path) -> dict[str, Any]:
    """``parseLog(<log text>)`` from the definition, run the way gh-aw loads it."""
    definition = frontmatter()["engine"]
    work.mkdir(parents=True, exist_ok=True)
    module = work / f"{definition['id']}_log_parser.cjs"
    module.write_text(WRAPPER.format(name=definition["display-name"], source=parser_source()), encoding="utf-8")
    (work / "log_parser_shared.cjs").write_text("module.exports = { createEngineLogParser: () => async () => {} };\n")
    (work / "run.cjs").write_text(RUNNER, encoding="utf-8")
    proc = subprocess.run(
        [node(), str(work / "run.cjs"), str(module), str(log)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def captured_step(step: AgentStep, timeout: float = 120, started_ms: int | None = None) -> tuple[int, Path]:
    """Run the engine as the compiled step does; its exit code and ``agent-stdio.log``.
    ``started_ms``: the step's start as the start file records it (default: now)."""
    log = step.gh_aw / "agent-stdio.log"
    command = engine_command(step.definition, str(step.gh_aw / "aw-prompts" / "prompt.txt"))
    start = "$(date +%s%3N)" if started_ms is None else str(started_ms)
    script = (
        'set -o pipefail\nexport no_proxy="${NO_PROXY:-}"\n'
        f"printf '%s' \"{start}\" > {step.gh_aw / 'agent_cli_start_ms.txt'}\n"
        f"{command} 2>&1 | tee -a {log}"
    )
    proc = subprocess.run(
        ["bash", "-c", script], env=step.env(), cwd=step.workspace, capture_output=True, text=True, timeout=timeout
    )
    return proc.returncode, log


def session_artifact(entries: list[dict[str, Any]], path: Path) -> Path:
    """What gh-aw's log-parser step makes of the entries: ``agent-session.jsonl``, one event a line
    (``log_parser_bootstrap.cjs`` -> ``session_artifact.cjs`` ``serializeSessionArtifact`` @01b3e64)."""
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    return path
