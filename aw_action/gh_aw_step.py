"""``aw-harness gh-aw [--config FILE] [--model MODEL] [-- PROMPT]``: one run inside gh-aw's agent step.

The engine definition (``gh-aw/aw-harness.md``) runs ``aw-harness gh-aw -- "$(cat prompt.txt)"``
inside AWF; ``ghaw/invocation.py`` turns that step's environment into the harness's inputs. The ``--``
keeps a prompt that starts with ``-`` from reading as an option. The run is always in gh-aw mode
(``GITHUB_AW=true``, ``run/mode.py``): ``GH_AW_*`` limits, gh-aw's records. Output and exit codes
are the CLI's: one JSON result on stdout, the JSONL stream on stderr, 0/1/2.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from aw_action.config import ResolvedConfig, resolve_config
from aw_action.environment.runner import RunnerFacts
from aw_action.exits import InvocationError
from aw_action.ghaw.invocation import CONFIG_ENV, MODEL_ENV, choose_prompt, config_sources
from aw_action.harness.arguments import OneLineParser
from aw_action.harness.guards import harden_process
from aw_action.harness.invocation import Harness
from aw_action.harness.supervisor import ResultPrinter, run_and_print, stop_signals
from aw_action.run.mode import MODE_ENV

USAGE = "aw-harness gh-aw [--config FILE] [--model MODEL] [-- PROMPT]"
VIRTUAL_CONFIG = "aw-harness.gh-aw.json"
"""Stands in for config.json when there is none: relative paths resolve in the workspace."""


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="aw-harness gh-aw", description="Run one session inside a gh-aw agent step.", usage_line=USAGE
    )
    p.add_argument("--config", type=Path, help=f"optional config.json with harness settings (or {CONFIG_ENV})")
    p.add_argument("--model", help=f"model, overriding {MODEL_ENV}")
    p.add_argument("prompt", nargs="*", help="the compiled prompt text (GH_AW_PROMPT wins when set)")
    return p


def _config_path(args: argparse.Namespace, env: dict[str, str], workspace: Path) -> tuple[Path, bool]:
    if args.config is not None:
        return args.config, True
    named = env.get(CONFIG_ENV, "").strip()
    return (Path(named), True) if named else (workspace / VIRTUAL_CONFIG, False)


def prepare(
    args: argparse.Namespace, env: dict[str, str], runner: RunnerFacts, workdir: Path
) -> tuple[ResolvedConfig, Path]:
    """``(the resolved config, the prompt's path)``; raises ``InvocationError``. ``runner``: the
    step's record of the runner's facts (of ``env``)."""
    workspace = runner.workspace_or(os.getcwd())
    config_path, real = _config_path(args, env, workspace)
    resolved = resolve_config(config_sources(env, config_path, file=real, model_flag=args.model), env)
    prompt_path, prompt_text = choose_prompt(env, " ".join(args.prompt) if args.prompt else None)
    if prompt_path is None:
        prompt_path = workdir / "prompt.txt"
        prompt_path.write_text(prompt_text or "", encoding="utf-8", errors="replace")
    return resolved, prompt_path


def main(argv: list[str]) -> int:
    harden_process()
    stops = stop_signals()
    args = parser().parse_args(argv)
    env = {**os.environ, MODE_ENV: "true"}
    runner = RunnerFacts.read(env)  # once: the harness gets this record
    with tempfile.TemporaryDirectory(prefix="aw-harness-gh-aw-") as tmp:
        model = (args.model or env.get(MODEL_ENV) or "unknown").strip() or "unknown"
        try:
            resolved, prompt_path = prepare(args, env, runner, Path(tmp))
        except InvocationError as exc:
            harness = Harness(Path(VIRTUAL_CONFIG), Path("prompt.txt"), env, runner_facts=runner)
            result = harness.refuse(exc, model)
            ResultPrinter(harness).print(result)
            return result.exit_code
        return run_and_print(Harness(resolved, prompt_path, env, runner_facts=runner), stops)
