"""Built-in extension: safe outputs in the running session (docs/safe-outputs.md).

At setup it types and checks the config's ``safe-outputs:`` (a bad value fails the invocation,
exit 2, naming the field: ``safe-outputs.<kind>.max: ...``) and registers one tool per
configured kind (``safe_outputs.safe_output_tools``), which also writes the config beside the
records so the agent's ``aw-harness safe-output`` finds it from bash. Inside a compiled gh-aw
workflow (``GITHUB_AW=true``) it does nothing: there ``safe-outputs:`` is gh-aw's, and the agent
uses gh-aw's own ``safeoutputs`` command.

At shutdown, whatever wrote them (the tools or the bash command): the records file, its config
copy and the pull-request patches are registered as run files, and the step summary gets a short
section listing the proposed items.

The recorder captures a pull request's patch with git as the tools' user, with the tools'
environment without any credential, inside the kernel sandbox and with every program the
repository could name shut off (``safe_outputs/patch.py``): the workspace's git config is the
agent's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aw_action.exits import InvocationError
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.run.result import RunResult
from aw_action.safe_outputs import (
    CONFIG_FILE,
    RECORDS_FILE,
    SafeOutputsConfigError,
    gh_aw_mode,
    parse_safe_outputs,
    read_records,
    safe_output_tools,
)
from aw_action.safe_outputs.records import RecordLine
from aw_action.security.confinement.tool_env import credential_free
from aw_action.security.records.record_guard import is_record_file
from aw_action.sinks import markdown as md

MAX_SUMMARY_ROWS = 50
MAX_CELL_CHARS = 100


def _short(text: Any) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= MAX_CELL_CHARS else line[: MAX_CELL_CHARS - 1] + "…"


def _what(record: dict[str, Any]) -> str:
    """One line for a proposed item: its title, labels, message or body, whichever it has; a review
    comment's place (``path:line``) and a review's event first."""
    if record.get("title"):
        return _short(record["title"])
    if isinstance(record.get("labels"), list):
        return _short(", ".join(map(str, record["labels"])))
    text = str(record.get("message") or record.get("body") or record.get("reason") or "")
    if record.get("comment_id"):
        text = f"{record.get('reason') or 'SPAM'} {record['comment_id']}"
    if record.get("path") and record.get("line"):
        start = f"{record['start_line']}-" if record.get("start_line") else ""
        text = f"{record['path']}:{start}{record['line']} ({record.get('side') or 'default side'}) {text}"
    elif record.get("event"):
        text = f"{record['event']}: {text}"
    return _short(text)


def _target(record: dict[str, Any]) -> str:
    number = record.get("item_number") or record.get("pull_request_number") or record.get("issue_number")
    return f"#{number}" if number not in (None, "") else ""


def _inert(text: str) -> str:
    """Text the agent wrote, as one code span (``md.table`` escapes its pipes)."""
    return md.code(text) if text.strip() else ""


def summary_section(lines: list[RecordLine]) -> str:
    """``### Safe outputs proposed``: one row per record, in file order (applied by a later job)."""
    rows = [
        [str(line.number), md.code(line.type or "?"), md.cell(_target(line.record)), _inert(_what(line.record))]
        if line.record is not None
        else [str(line.number), "–", "", _inert(line.error or "")]
        for line in lines[:MAX_SUMMARY_ROWS]
    ]
    if len(lines) > MAX_SUMMARY_ROWS:
        rows.append(["…", "", "", f"_{len(lines) - MAX_SUMMARY_ROWS} more in {RECORDS_FILE}_"])
    intro = (
        f"Recorded in `{RECORDS_FILE}`; nothing was written to GitHub. A later job with write access "
        "checks and applies them (`aw-harness apply-safe-outputs`, or the action with `mode: apply`)."
    )
    return "\n\n".join(["### Safe Outputs Proposed", intro, md.table(["Line", "Type", "Target", "Item"], rows, "rlll")])


class SafeOutputs:
    def __init__(self, api: ExtensionAPI) -> None:
        self.api = api
        self.output_dir = Path(api.output_dir)

    def register_tools(self) -> None:
        try:
            config = parse_safe_outputs(self.api.config.safe_outputs or None)
        except SafeOutputsConfigError as exc:
            raise InvocationError(str(exc)) from None
        redactor = self.api.services.redactor
        env = credential_free(self.api.env, secrets=redactor.secrets)
        held = self.api.services.records
        tools = safe_output_tools(
            config,
            self.output_dir,
            self.api.workspace,
            env=env,
            scrub=redactor.text,
            records=held,
            runner=self.api.runner_facts,
        )
        for tool in tools:
            self.api.register_tool(tool)

    def on_shutdown(self, result: RunResult, ctx: ExtensionContext) -> None:
        held = self.api.services.records  # read in the output dir the run holds, never through a link
        records = self.output_dir / RECORDS_FILE
        if not is_record_file(records, held):
            return
        lines = read_records(records, held)
        patches = [
            self.output_dir / Path(str(line.record["patch_path"])).name
            for line in lines
            if line.record is not None and isinstance(line.record.get("patch_path"), str)
        ]
        record = self.api.state.record
        for path in (records, self.output_dir / CONFIG_FILE, *patches):
            if is_record_file(path, held):
                record.add_file(path)
        if lines:
            record.summary_sections.append(summary_section(lines))


def setup(api: ExtensionAPI) -> None:
    if gh_aw_mode(api.env):
        return
    extension = SafeOutputs(api)
    extension.register_tools()
    api.on("session_shutdown", extension.on_shutdown)
