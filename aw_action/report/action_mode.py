"""The action's ``mode: report``: one report over the artifacts of the runs before it (the jobs of
a matrix), for a job that ``needs:`` them and downloaded their artifacts (docs/report.md).

Input ``report-path``: the folder ``actions/download-artifact`` filled (one subfolder per
artifact; workspace-relative, or under ``runner.temp`` as the workflow wrote it). The Markdown
report goes to the step summary, the JSON one to ``report.json`` in ``output-dir``; the outputs
are ``conclusion`` and ``exit-code``. Exit 0 when every artifact was read, 1 when the report lists
some it could not read (each also a warning annotation), 2 when ``report-path`` is missing or
does not exist (an error naming the input). Nothing here runs an agent or needs a key.
"""

from __future__ import annotations

import json
from pathlib import Path

from aw_action.environment.runner import RunnerFacts
from aw_action.github.action_inputs import ActionInputError, ActionInputs
from aw_action.github.log import WorkflowLog
from aw_action.github.paths import container_path
from aw_action.github.plan import made_output_dir
from aw_action.github.run_report import write_outputs_or_warn
from aw_action.report import ReportInputError, exit_code, make_report
from aw_action.report.render import render_markdown

TITLE = "aw-harness: report"
REPORT_FILE = "report.json"


def run_report_mode(inputs: ActionInputs, runner: RunnerFacts, log: WorkflowLog) -> int:
    """Report, write the summary, the JSON file and the outputs; ``ActionInputError`` for a
    missing ``report-path`` or an ``output-dir`` that cannot be made. ``runner``: the action's
    record of the runner's facts."""
    if not inputs.report_path:
        raise ActionInputError("report-path", "required with mode: report (the folder of downloaded artifacts)")
    workspace = runner.workspace_or(Path.cwd())
    path = container_path(inputs.report_path, runner, workspace)
    try:
        report = make_report([path], runner.server)
    except ReportInputError as exc:
        raise ActionInputError("report-path", str(exc)) from None
    out = made_output_dir(inputs, runner, workspace)
    text = render_markdown(report)
    log.write(text)
    for problem in report["problems"]:
        log.warning(f"{problem['status']}: {problem['problem']}", title=TITLE)
    try:
        (out / REPORT_FILE).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        log.warning(f"{out / REPORT_FILE} not written: {exc.strerror or exc}", title=TITLE)
    summary = runner.step_summary
    if summary:
        try:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            log.warning(f"step summary not written: {exc.strerror or exc}", title=TITLE)
    code = exit_code(report)
    outputs = {"conclusion": "success" if code == 0 else "failure", "exit-code": str(code)}
    write_outputs_or_warn(runner, outputs, log)
    log.finish()
    return code
