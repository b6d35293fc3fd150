"""A run the action cannot start, whatever stops it (a bad input, an unknown model, a malformed
``GH_AW_*`` limit, a missing key): the same report as any run, through the real entrypoint, a
local artifact v4 server and GitHub's own Markdown renderer: a failure summary whose heading and
callout say what to change, a JSONL ``error`` record naming the setting, the result object, the
outputs, one ``::error::`` with the fix, the artifact with ``result.json``, and a closing line."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest

from tests.action.launch import ActionRun, run_action
from tests.github.artifact_server import ArtifactServer, runtime_token
from tests.sinks.support import gfm_page

TOKEN = runtime_token("41", "41")
ARTIFACT_PAGE = "https://github.com/octo/hello/actions/runs/123456/artifacts/4242"


def _run(tmp_path: Path, inputs: dict[str, str], env: dict[str, str]) -> tuple[ActionRun, dict[str, bytes]]:
    with ArtifactServer(TOKEN) as server:
        extra = {"ACTIONS_RUNTIME_TOKEN": TOKEN, "ACTIONS_RESULTS_URL": server.url + "/", **env}
        run = run_action(tmp_path, inputs, extra)
        archive = zipfile.ZipFile(io.BytesIO(server.uploaded()))
        return run, {name: archive.read(name) for name in archive.namelist()}


CASES = [
    pytest.param(
        {"prompt": "x", "model": "no-such-model-xyz"},
        {},
        "Invalid input 'model'",
        "model",
        "Correct the <code>model</code> input under the step's <code>with:</code>",
        id="unknown-model",
    ),
    pytest.param(
        {"prompt": "x", "model": "faux/scripted"},
        {"GH_AW_MAX_AI_CREDITS": "lots"},
        "The run could not start",
        "GH_AW_MAX_AI_CREDITS",
        "Correct the <code>GH_AW_MAX_AI_CREDITS</code> variable",
        id="malformed-gh-aw-limit",
    ),
    pytest.param(
        {"prompt": "x", "model": "faux/scripted", "max-turns": "many"},
        {},
        "Invalid input 'max-turns'",
        "max-turns",
        "Correct the <code>max-turns</code> input under the step's <code>with:</code>",
        id="invalid-input",
    ),
    pytest.param(
        {"prompt": "x", "model": "anthropic/claude-sonnet-4-5"},
        {},
        "No credentials for the model",
        None,
        "Set the <code>anthropic-api-key</code> input",
        id="missing-key",
    ),
]


@pytest.mark.parametrize(("inputs", "env", "title", "setting", "fix"), CASES)
def test_a_run_that_could_not_start_is_reported_like_any_run(
    tmp_path: Path, inputs: dict[str, str], env: dict[str, str], title: str, setting: str | None, fix: str
) -> None:
    run, artifact = _run(tmp_path, inputs, env)
    assert run.returncode == 2, run.stdout
    assert (run.outputs["exit-code"], run.outputs["stop-reason"]) == ("2", "invocation_error")
    assert run.result["stop_reason"] == "invocation_error"

    errors = run.events("error")
    assert len(errors) == 1 and errors[0]["stop_reason"] == "invocation_error"
    assert errors[0].get("setting") == setting

    html = gfm_page(run.summary)
    assert re.search(rf"<h2>❌ Failure · {re.escape(title)}</h2>", html), html
    callout = re.search(r"<blockquote>\s*<p>\[!CAUTION\](.*?)</p>", html, re.S)
    assert callout and fix in callout.group(1), html
    assert f'<a href="{ARTIFACT_PAGE}">artifact <code>aw-harness-smoke-0-1</code></a>' in html
    assert "no transcript" in html and "session.jsonl" not in html, "the records line says what the artifact holds"

    assert json.loads(artifact["result.json"])["stop_reason"] == "invocation_error"
    annotations = run.runner.named("error")
    assert len(annotations) == 1 and "Fix: " in annotations[0].data
    assert run.stdout.rstrip().splitlines()[-2] == f"aw-harness: ❌ failure · {title}", "the log's closing line"
