"""Property tests (issue 10, item 2): whatever the config, the action inputs or the command line
hold, the parsers give a value or the project's one-line error, never anything else.

Each runs at least 1,000 generated cases. The strategies aim at the fields that matter (budgets,
timeouts, models, imports, inputs) with hostile values: non-finite and huge numbers, wrong types,
empty and NUL strings, deep nesting, invalid surrogates, near-miss keys.
"""

from __future__ import annotations

import contextlib
import json
import os
import string
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aw_action.config import ConfigSources, resolve_config
from aw_action.exits import InvocationError
from aw_action.github.action_inputs import ActionInputError, ActionInputs, env_name
from aw_action.github.plan import build_plan
from aw_action.run.prompt_files import resolve_imports

CASES = settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))

NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 0.5, 1e308, 1e-308, 10**400]),
)
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40) | st.sampled_from(
    ["", " ", "\x00", "inf", "-inf", "nan", "NaN", "1e400", "sonnet", "faux/scripted", "../..", "a\x00b"]
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(
    [
        "engine",
        "timeout-minutes",
        "timeout-minute",
        "imports",
        "harness",
        "tools",
        "safe-outputs",
        "observability",
        "cli-proxy",
        "on",
    ]
)
HARNESS_KEYS = st.sampled_from(["budget", "context", "steering", "extensions", "faux-script", "system-prompt", "x"])
BUDGET_KEYS = st.sampled_from(
    ["max-effective-tokens", "max-ai-credits", "max-turns", "max-tool-calls", "max-effective-tokenz"]
)


@st.composite
def configs(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return draw(JSON)
    config: dict[str, Any] = draw(st.dictionaries(KEYS, JSON, max_size=5))
    if draw(st.booleans()):
        config["engine"] = {"model": draw(TEXT | st.sampled_from(["faux/scripted", "sonnet"]))}
    if draw(st.booleans()):
        budget = draw(st.dictionaries(BUDGET_KEYS, NUMBERS | TEXT, max_size=3))
        harness = draw(st.dictionaries(HARNESS_KEYS, JSON, max_size=3))
        config["harness"] = {**harness, "budget": budget}
    if draw(st.booleans()):
        config["imports"] = draw(st.lists(TEXT | st.fixed_dictionaries({"path": TEXT}), max_size=3))
    return config


@CASES
@given(configs())
def test_the_config_loader_gives_a_config_or_one_line(data: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        try:
            config = resolve_config(ConfigSources(path, label="config.json"), {}).config
        except InvocationError as exc:
            assert "\n" not in str(exc) and str(exc).startswith(("config.json", "config file", "engine.model: "))
            return
    try:
        resolve_imports(config, Path("/nonexistent-aw-config-dir"))
    except InvocationError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("imports[")


INPUTS = [
    "prompt",
    "model",
    "max-effective-tokens",
    "max-ai-credits",
    "max-turns",
    "max-tool-calls",
    "timeout-minutes",
    "compaction",
    "extensions",
    "imports",
    "otlp-endpoint",
    "otlp-headers",
    "upload-artifacts",
    "artifact-name",
    "output-dir",
]
INPUT_TEXT = (
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)
    | st.sampled_from(["inf", "nan", "-1", "0", "1e400", "3", "2.5", "true", "yes", "faux/scripted", "a=b%20c", ""])
    | st.integers().map(str)
    | st.floats().map(str)
)


@contextlib.contextmanager
def inputs_env(values: dict[str, str]) -> Iterator[None]:
    saved = {k: v for k, v in os.environ.items() if k.upper().startswith("INPUT_")}
    for name in saved:
        del os.environ[name]
    os.environ.update({env_name(k): v for k, v in values.items()})
    try:
        yield
    finally:
        for name in [k for k in os.environ if k.upper().startswith("INPUT_")]:
            del os.environ[name]
        os.environ.update(saved)


@CASES
@given(st.dictionaries(st.sampled_from(INPUTS), INPUT_TEXT, max_size=6))
def test_the_action_input_parser_gives_a_plan_or_names_the_input(values: dict[str, str]) -> None:
    workspace = Path("/tmp/aw-property-ws")
    workspace.mkdir(exist_ok=True)
    values.setdefault("output-dir", "out")
    with inputs_env(values):
        try:
            inputs = ActionInputs.from_env()
            build_plan(inputs, {"GITHUB_WORKSPACE": str(workspace)}, workspace)
        except ActionInputError as exc:
            assert exc.input in {*INPUTS, "config"}, exc.input
            assert "\n" not in exc.message


ARG = st.sampled_from(["--config", "--prompt", "--help", "-h", "--", "-", "--configx", "--prompt=", "x"]) | st.text(
    alphabet=string.printable.replace("\x00", ""), max_size=12
)


@CASES
@given(argv=st.lists(ARG, max_size=6))
def test_the_command_line_parser_gives_arguments_or_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from aw_action.cli import run_parser

    try:
        parsed = run_parser().parse_args(argv)
    except SystemExit as exc:
        assert exc.code in (0, 2)  # --help exits 0
        out = capsys.readouterr()
        if exc.code == 2:
            assert out.err.startswith("aw-harness: error: ") and out.err.count("\n") == 1
            assert out.out.count("\n") == 1 and '"exit_code": 2' in out.out
        return
    assert isinstance(parsed.config, Path) and isinstance(parsed.prompt, Path)
