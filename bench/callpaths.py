"""The call paths of one demo run between the layers (issue 31): every Python call from a module
of ``harness/`` into one of ``security/``, and every call from a lower layer up into a higher one
(the layer order of pyproject.toml's import-linter contract), and every call into ``security/`` by
the calling package, counted with ``sys.setprofile`` (and
``threading.setprofile``) over ``aw-harness --config examples/demo/config.json --prompt
examples/demo/prompt.txt`` run in this process (the scripted provider: one bash call, one file
written, a final answer). Reported, never asserted; bench/CALLPATHS.md holds the figures.

    .venv/bin/python bench/callpaths.py [--source CHECKOUT] [--top N] [--max-turns N]

``--source`` measures another checkout's ``aw_action`` (the one before a change) with this script.
A call counts once per Python call event (C functions are not traced); "sites" are the distinct
(caller function, callee function) pairs. Generator and coroutine resumptions are call events
too: an ``async`` handler a lower layer awaits counts each time it resumes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import threading
import tomllib
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def layers(source: Path) -> dict[str, int]:
    """Top-level package or module of ``aw_action`` -> its layer (0: the top)."""
    config = tomllib.loads((source / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    out: dict[str, int] = {}
    for depth, layer in enumerate(contract["layers"]):
        for name in layer.split("|"):
            out[name.strip().removeprefix("aw_action.")] = depth
    return out


def package(module: str) -> str | None:
    """``aw_action.harness.guards`` -> ``harness``; None outside ``aw_action``."""
    parts = module.split(".")
    return parts[1] if parts[0] == "aw_action" and len(parts) > 1 else None


class Tracer:
    def __init__(self, order: dict[str, int]) -> None:
        self.order = order
        self.down: Counter[tuple[str, str]] = Counter()
        self.up: Counter[tuple[str, str]] = Counter()
        self.into_security: Counter[str] = Counter()
        """Calls into ``security/`` by the calling package (``tools``: the bash call's spawn)."""

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_back is None:
            return
        callee = frame.f_globals.get("__name__", "")
        caller = frame.f_back.f_globals.get("__name__", "")
        low, high = package(callee), package(caller)
        if low is None or high is None or low == high:
            return
        site = (f"{caller}.{frame.f_back.f_code.co_name}", f"{callee}.{frame.f_code.co_name}")
        if low == "security":
            self.into_security[high] += 1
        if high == "harness" and low == "security":
            self.down[site] += 1
        if low in self.order and high in self.order and self.order[low] < self.order[high]:
            self.up[site] += 1


def run_demo(source: Path, max_turns: int | None = None) -> Tracer:
    """The demo run traced; ``max_turns`` puts a turn budget on it, so it ends in a budget stop
    (exit 1) instead: the call path of a budget stop."""
    sys.path.insert(0, str(source))
    from aw_action import cli  # the checkout's, imported before the trace starts

    tracer = Tracer(layers(source))
    work = Path(tempfile.mkdtemp(prefix="aw-callpaths-"))
    (work / "ws").mkdir()
    shutil.copytree(ROOT / "examples" / "demo", work / "demo")
    if max_turns is not None:
        config_file = work / "demo" / "config.json"
        config = json.loads(config_file.read_text())
        config["harness"]["budget"]["max-turns"] = max_turns
        config_file.write_text(json.dumps(config))
    os.environ.update(AW_OUTPUT_DIR=str(work / "out"), GITHUB_WORKSPACE=str(work / "ws"))
    os.chdir(work / "ws")
    argv = ["--config", str(work / "demo" / "config.json"), "--prompt", str(work / "demo" / "prompt.txt")]
    out, err = io.StringIO(), io.StringIO()
    threading.setprofile(tracer)
    sys.setprofile(tracer)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(argv)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    if code != (0 if max_turns is None else 1):
        raise SystemExit(f"the demo run failed ({code}): {err.getvalue()[-2000:]}")
    shutil.rmtree(work, ignore_errors=True)
    return tracer


def report(name: str, counts: Counter[tuple[str, str]], top: int) -> None:
    modules = Counter(f"{a.rsplit('.', 1)[0]} -> {b.rsplit('.', 1)[0]}" for a, b in counts.elements())
    print(f"{name}: {sum(counts.values())} calls, {len(counts)} sites, {len(modules)} module pairs")
    for (caller, callee), n in counts.most_common(top):
        print(f"  {n:6d}  {caller} -> {callee}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--max-turns", type=int, help="a turn budget: the demo ends in a budget stop")
    args = parser.parse_args()
    tracer = run_demo(args.source.resolve(), args.max_turns)
    report("harness -> security", tracer.down, 100)
    report("lower layer -> higher layer", tracer.up, args.top)
    print("into security, by calling package:", dict(tracer.into_security.most_common()))


if __name__ == "__main__":
    main()
