"""``aw-harness workflow run|resume``: a declarative multi-step workflow as one run (docs/workflows.md).

    aw-harness workflow run FILE --input TEXT [--model MODEL] [--config CONFIG] [--format F]
    aw-harness workflow resume CHECKPOINT [--approve | --request-changes TEXT] [--checkpoint-run ID]
                                          [--workflow FILE] [--model MODEL] [--config CONFIG] [--format F]

``--config`` is a config.json (budgets, steering, tools, extensions, ...); ``--model`` overrides
its ``engine.model`` (and is required without one). ``resume`` reloads the workflow ``--workflow``
names (or the one the checkpoint names, only when it is inside the workspace), reconciles the
checkpoint with it and continues; a run
waiting for a review needs ``--approve`` or ``--request-changes``. The reviews a checkpoint
records count only where its origin vouches for them (``github/run_origin.py``): on a person's
own machine, or for the run ``--checkpoint-run`` names when GitHub's record of it says it is the
repository's own; otherwise the run restarts at the first step a reviewer decided.

Output and stops are the CLI's: one JSON result on stdout, the JSONL stream on stderr, the
shared stop scheme (signals, the deadline), exit 0 (done or paused), 1 (a step failed, the loop
guard, a cancel or a budget) or 2 (an invocation error: a workflow that does not load, with
its file, line and field; a checkpoint that does not fit).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, cast

from aw_action.config import ConfigSources, Override, resolve_config
from aw_action.config.resolve import MODEL_PATH
from aw_action.environment.runner import RunnerFacts
from aw_action.exits import InvocationError
from aw_action.github.run_origin import approvals_withheld
from aw_action.harness.arguments import OneLineParser
from aw_action.harness.guards import harden_process
from aw_action.harness.invocation import Harness
from aw_action.harness.supervisor import ResultPrinter, run_and_print, stop_signals
from aw_action.harness.workflow import WorkflowHarness
from aw_action.sinks.pretty import FORMATS, PrettyStream, wants_pretty
from aw_action.workflows.request import WorkflowRequest
from aw_action.workflows.resume import GateDecision

USAGE = (
    "aw-harness workflow run FILE --input TEXT [--model MODEL] [--config CONFIG] | "
    "aw-harness workflow resume CHECKPOINT [--approve | --request-changes TEXT] [--workflow FILE] [--checkpoint-run ID]"
)
VIRTUAL_CONFIG = "aw-harness.workflow.json"
"""Stands in for config.json when there is none: relative paths resolve in the workspace."""


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="aw-harness workflow", description="Run or resume a declarative workflow.", usage_line=USAGE)
    commands = p.add_subcommands(dest="command", required=True)
    run = commands.add_parser("run", help="start a workflow run")
    run.add_argument("workflow", type=Path, help="the workflow file (YAML)")
    run.add_argument("--input", required=True, help="the workflow's input ({{workflow.input}})")
    resume = commands.add_parser("resume", help="continue a paused run from its checkpoint")
    resume.add_argument("checkpoint", type=Path, help="workflow-checkpoint.json of the paused run")
    decision = resume.add_mutually_exclusive_group()
    decision.add_argument("--approve", action="store_true", help="approve the artifact waiting for review")
    decision.add_argument("--request-changes", metavar="TEXT", help="send the artifact back with this feedback")
    resume.add_argument(
        "--workflow", type=Path, help="the workflow file (default: the checkpoint's, if inside the workspace)"
    )
    resume.add_argument(
        "--checkpoint-run",
        metavar="RUN_ID",
        help="the workflow run that uploaded the checkpoint: its reviews count only if GitHub's record "
        "of that run says it is this repository's own (needed inside GitHub Actions)",
    )
    for sub in (run, resume):
        sub.add_argument("--model", help="model, overriding the config's engine.model")
        sub.add_argument("--config", type=Path, help="config.json with budgets, steering and the rest")
        sub.add_argument(
            "--format",
            choices=FORMATS,
            default="auto",
            help="stderr for people (pretty) or machines (jsonl); auto: pretty on a terminal",
        )
    return p


def request_of(args: argparse.Namespace, env: Mapping[str, str], runner: RunnerFacts) -> WorkflowRequest:
    if args.command == "run":
        return WorkflowRequest(workflow=args.workflow, input=args.input)
    decision = None
    if args.approve:
        decision = GateDecision(approved=True)
    elif args.request_changes is not None:
        if not args.request_changes.strip():
            raise InvocationError("--request-changes needs the feedback text")
        decision = GateDecision(approved=False, feedback=args.request_changes)
    withheld = approvals_withheld(args.checkpoint_run, env, runner=runner)
    return WorkflowRequest(args.workflow, None, args.checkpoint, decision, approvals_withheld=withheld)


NO_MODEL = "a model is required: pass --model or a --config with engine.model"


def config_sources(args: argparse.Namespace, workspace: Path) -> ConfigSources:
    """``--config`` (else no file), with ``--model`` over its ``engine.model``."""
    overrides = (Override(MODEL_PATH, args.model, "--model"),) if args.model else ()
    if args.config is not None:
        return ConfigSources(args.config, overrides=overrides)
    virtual = workspace / VIRTUAL_CONFIG
    return ConfigSources(virtual, file=False, overrides=overrides, missing_model=NO_MODEL, label="--model")


def main(argv: list[str]) -> int:
    harden_process()
    stops = stop_signals()
    args = parser().parse_args(argv)
    env = dict(os.environ)
    runner = RunnerFacts.read(env)  # once: the harness gets this record
    workspace = runner.workspace_or(os.getcwd())
    try:
        resolved = resolve_config(config_sources(args, workspace), env)
        request = request_of(args, env, runner)
    except InvocationError as exc:
        return _fail(env, runner, exc, args.model or "unknown")
    pretty = wants_pretty(args.format, sys.stderr)
    stream = cast(IO[str], PrettyStream(sys.stderr)) if pretty else None  # a text stream but for typeshed
    harness = WorkflowHarness(resolved, request, env, stderr=stream, readable=pretty, runner_facts=runner)
    return run_and_print(harness, stops)


def _fail(env: dict[str, str], runner: RunnerFacts, exc: InvocationError, model: str) -> int:
    harness = Harness(Path(VIRTUAL_CONFIG), Path("prompt.txt"), env, runner_facts=runner)
    result = harness.refuse(exc, model)
    ResultPrinter(harness).print(result)
    return result.exit_code
