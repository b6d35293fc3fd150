"""``aw-harness apply-safe-outputs PATH [--config CONFIG] [--dry-run] [--from-run RUN_ID]``: apply records.

PATH is the records file or the folder holding it (a downloaded artifact). The limits come from
``--config`` (a config.json or the copy the recorder wrote; pass the repository's own file when
the agent could have touched the artifact), else the copy beside the records. The token is
``GITHUB_TOKEN``; the API is ``GITHUB_API_URL``; the repository ``GITHUB_REPOSITORY``; default
targets come from the event at ``GITHUB_EVENT_PATH``. ``--dry-run`` needs nothing but the records
(no token, repository or event: the report's ``assumed`` says what stood in), prints the planned
items and changes nothing.

Records written by a run a fork's code could control (``origin.py``, from GitHub's record of the
run) are untrusted: they need ``--config`` from outside their artifact, and no ``APPROVE`` or
``REQUEST_CHANGES`` applies from them.

Exit codes: 0 every record applied (or already present), or nothing to do; 1 at least one
record refused or failed (the others were still applied); 2 invalid input (no records file,
bad config, missing ``GITHUB_REPOSITORY``/``GITHUB_TOKEN``, bad arguments).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from github import GithubException

from aw_action.apply_outputs import origin
from aw_action.apply_outputs.context import ApplyContext, ApplyInputError
from aw_action.apply_outputs.github_api import RetryPolicy, connect, describe
from aw_action.apply_outputs.github_writer import GitHubWriter, apply_item
from aw_action.apply_outputs.plan import Refused, plan_records
from aw_action.apply_outputs.report import OK_STATUSES, publish
from aw_action.environment.runner import RunnerFacts
from aw_action.environment.tuning import GITHUB_WRITE_INTERVAL_MS
from aw_action.run.redact import Redactor, secrets_from_env
from aw_action.safe_outputs.config import CONFIG_FILE, SafeOutputsConfig, SafeOutputsConfigError, load_config_file
from aw_action.safe_outputs.kinds.apply_api import ApplyError, PlannedItem
from aw_action.safe_outputs.records import RECORDS_FILE, read_records
from aw_action.security.untrusted_text.public_text import allowed_domains

PROG = "aw-harness apply-safe-outputs"
MAX_RECORDS_BYTES = 64 * 1024 * 1024


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Apply recorded safe outputs to GitHub.")
    parser.add_argument("path", type=Path, help="safe-outputs.jsonl, or the folder (artifact) holding it")
    parser.add_argument("--config", type=Path, help="config.json (or safe-outputs.config.json) with the limits")
    parser.add_argument("--dry-run", action="store_true", help="print the planned items; change nothing")
    parser.add_argument(
        "--from-run",
        metavar="RUN_ID",
        help="the workflow run that wrote the records (looked up on GitHub: a fork-controlled run is untrusted)",
    )
    return parser


def _inputs(path: Path, config_path: Path | None) -> tuple[Path, SafeOutputsConfig]:
    records = path / RECORDS_FILE if path.is_dir() else path
    if not records.is_file():
        raise ApplyInputError(f"{records}: no records file")
    if records.stat().st_size > MAX_RECORDS_BYTES:
        raise ApplyInputError(f"{records}: larger than {MAX_RECORDS_BYTES // 2**20} MiB; not a run's records")
    beside = records.parent / CONFIG_FILE
    if config_path is None and not beside.is_file():
        raise ApplyInputError(f"no config: pass --config or keep {CONFIG_FILE} next to the records")
    try:
        return records, load_config_file(config_path or beside)
    except SafeOutputsConfigError as exc:
        raise ApplyInputError(str(exc)) from None


def _write_interval(env: Mapping[str, str]) -> float:
    return (GITHUB_WRITE_INTERVAL_MS.number(env) or 0.0) / 1000


def _judged(
    ctx: ApplyContext, args: argparse.Namespace, records_dir: Path, env: Mapping[str, str], runner: RunnerFacts
) -> ApplyContext:
    """``ctx`` with the records' trust (``origin.py``); ``ApplyInputError`` when untrusted records
    would be applied with the limits their own artifact carries."""
    run = origin.source_run(args.from_run, env, runner, ctx.event)
    reason = origin.untrusted_reason(run, env, runner, ctx.token)
    if reason is None:
        return ctx
    refusal = origin.config_refusal(reason, args.config, records_dir)
    if refusal is not None:
        raise ApplyInputError(refusal)
    return replace(ctx, untrusted=reason)


def apply_items(
    planned: list[PlannedItem | Refused], writer: GitHubWriter | None, log: Callable[[str], object]
) -> list[dict[str, Any]]:
    """Apply each planned item in order (``writer`` None = dry run); one failing does not stop the rest."""
    out: list[dict[str, Any]] = []
    for entry in planned:
        if isinstance(entry, Refused) or writer is None:
            out.append(entry.to_json())
            continue
        base = {"line": entry.line, "type": entry.type, "title": entry.title, "repository": entry.repository}
        try:
            done = apply_item(entry, writer)
            result = {**base, "status": done.status, "url": done.url, "number": done.number, **(done.details or {})}
        except (GithubException, ApplyError, OSError) as exc:  # requests' errors are OSErrors
            result = {**base, "status": "failed", "error": describe(exc)}
        except Exception as exc:  # one broken record must not stop the others
            result = {**base, "status": "failed", "error": f"internal error: {type(exc).__name__}: {exc}"}
        out.append({k: v for k, v in result.items() if v is not None})
        outcome = result.get("url") or result.get("error", "")
        log(f"{PROG}: line {entry.line} {entry.type}: {result['status']} {outcome}\n")
    return out


def main(
    argv: list[str], env: Mapping[str, str] | None = None, *, sleep: Any = None, runner: RunnerFacts | None = None
) -> int:
    """The command (see the module docstring). ``runner``: the record of the runner's facts an
    entry point that runs this one read already (of ``env``); read here otherwise, once."""
    environ = dict(os.environ if env is None else env)
    runner = runner or RunnerFacts.read(environ)
    args = _parser().parse_args(argv)
    redactor = Redactor(secrets_from_env(environ))
    try:
        records, config = _inputs(args.path, args.config)
        ctx = ApplyContext.from_env(environ, dry_run=args.dry_run, runner=runner)
        if ctx.token:
            redactor.add(ctx.token)
        ctx = _judged(ctx, args, records.parent, environ, runner)
    except ApplyInputError as exc:
        sys.stderr.write(f"{PROG}: error: {redactor.text(str(exc))}\n")
        return 2
    if ctx.untrusted:
        sys.stderr.write(f"{PROG}: untrusted records ({ctx.untrusted}): no APPROVE or REQUEST_CHANGES applies\n")
    for note in ctx.assumed:
        sys.stderr.write(f"{PROG}: dry run: {note}\n")
    lines = read_records(records)
    planned = plan_records(lines, config, ctx, records.parent, allowed_domains(runner), redactor.text)
    writer = None
    if not args.dry_run:
        assert ctx.token is not None
        gh = connect(ctx.token, ctx.api_url, write_interval_s=_write_interval(environ))
        writer = GitHubWriter(gh, ctx, RetryPolicy(), sleep)
    items = apply_items(planned, writer, lambda line: sys.stderr.write(redactor.text(line)))
    report = {"dry_run": args.dry_run, "repository": ctx.repository, "run_id": ctx.run_id, "items": items}
    if ctx.assumed:
        report["assumed"] = list(ctx.assumed)
    if ctx.untrusted:
        report["untrusted"] = ctx.untrusted
    publish(report, runner, redactor, sys.stdout)
    return 0 if all(item["status"] in OK_STATUSES for item in items) else 1
