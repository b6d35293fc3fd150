"""The summary's first screen, parsed as GitHub renders it (cmark-gfm), for every way a run ends:
the conclusion and why in the heading, figures in people's units, the explanation with the
setting to change named as the person who started the run sets it, the answer rendered (outside
any code block) and the tool calls marked.

Real runs where a run can be made to end that way (the scripted model through the CLI); a built
state where it cannot cheaply (a cancel, a refused key, a paused workflow, gh-aw's names)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aw_action.exits import InvocationError, MissingCredentialsError, Setting
from aw_action.run.budget_kinds import BUDGET_KINDS, BudgetKind
from aw_action.run.explain import EXPLAINERS, explain
from aw_action.run.record import Audience, Reporting
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.sinks.closing import closing_line
from aw_action.sinks.summary import render_failure_summary, render_run_summary
from tests.action.launch import run_action, write_script
from tests.conftest import base_env, run_cli
from tests.sinks.support import BUDGET_SCRIPT, TOOL_SCRIPT, gfm_page, scripted_run
from tests.workflows.support import write_workflow

ANSWER = "# Findings\n\n| file | status |\n|---|---|\n| app.py | **ok** |\n\nPing @octocat when done."


@dataclass
class Header:
    """The first screen of a rendered summary."""

    heading: str
    facts: str
    callout: str
    """The first alert's text ("" when there is none), with its kind: ``[!CAUTION] ...``."""
    html: str

    def section(self, title: str) -> str:
        """The HTML from the ``<h3>`` that starts with ``title`` to the next one."""
        found = re.search(rf"<h3>{re.escape(title)}[^<]*</h3>(.*?)(?=<h3>|<details>|$)", self.html, re.S)
        assert found, f"no section {title!r} in {self.html[:2000]}"
        return found.group(1)


def header(markdown: str) -> Header:
    html = gfm_page(markdown)
    heading = re.search(r"<h2>(.*?)</h2>", html, re.S)
    facts = re.search(r"</h2>\s*<p>(.*?)</p>", html, re.S)
    quote = re.search(r"<blockquote>\s*<p>(\[!(?:CAUTION|WARNING)\].*?)</blockquote>", html, re.S)
    assert heading and facts, html[:500]
    return Header(heading.group(1), facts.group(1), quote.group(1) if quote else "", html)


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def summary_of(tmp: Path, script: list[dict[str, Any]], config: dict[str, Any] | None = None) -> tuple[Header, Any]:
    run = scripted_run(tmp, script, config)
    return header((tmp / "summary.md").read_text()), run


def test_success_shows_the_answer_rendered_and_no_callout(tmp_path: Path) -> None:
    script = [{"text": "Listing.", "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]}, {"text": ANSWER}]
    top, run = summary_of(tmp_path, script)
    assert run.returncode == 0
    assert top.heading == "✅ Success · Finished"
    facts = r"<strong>config\.json</strong> · in [\d.]+ s · \$0\.00 · 2 turns · 1 tool call · "
    facts += "<code>faux/scripted</code>"
    assert re.fullmatch(facts, top.facts), "the header names the workflow (the config file's name) and the model"
    assert top.callout == ""
    answer = top.section("Answer")
    assert "<h5>Findings</h5>" in answer and "<table>" in answer and "<strong>ok</strong>" in answer
    assert "<pre" not in answer and "<code>@octocat</code>" in answer, "rendered, outside any code block, inert"
    assert "<li>✅ <code>ls</code> · " in top.section("Tool calls")
    assert closing_line(RunResult.ended("completed", "m", None), "cli").startswith("aw-harness: ✅ success")


def test_failed_tool_calls_are_marked_and_explained(tmp_path: Path) -> None:
    top, run = summary_of(tmp_path, TOOL_SCRIPT)
    assert run.returncode == 0 and run.result["conclusion"] == "success"
    assert top.heading == "⚠️ Success · 1 of 2 tool calls failed"
    assert "2 tool calls (1 failed)" in top.facts
    assert top.callout.startswith("[!WARNING]") and "accounts for the failed call" in top.callout
    calls = top.section("Tool calls")
    assert re.search(r"<li>❌ <code>exit 3</code> · [\d,]+ ms · exit 3</li>", calls)
    assert re.search(r"<li>✅ <code>echo one</code> · [\d,]+ ms</li>", calls)


def test_a_token_budget_stop_names_the_config_key_the_figures_and_the_trigger(tmp_path: Path) -> None:
    top, run = summary_of(tmp_path, BUDGET_SCRIPT, {"harness": {"budget": {"max-effective-tokens": 4000}}})
    assert run.result["stop_reason"] == "budget_exceeded"
    assert top.heading == "❌ Failure · Stopped by the effective-token limit"
    assert "stop reason <code>budget_exceeded</code> (exit 1)" in top.facts
    stop = run.events_named("budget_exceeded")[0]
    assert top.callout.startswith("[!CAUTION]")
    assert f"{round(stop['used']):,} of 4,000 effective tokens used" in top.callout
    assert "the next request was not sent" in top.callout
    assert "Raise <code>harness.budget.max-effective-tokens</code> in config.json (now 4,000)" in top.callout
    assert "exceeded" not in text_of(top.callout), "the run stopped before the limit: nothing was exceeded"


def test_the_turn_limit_names_its_key_and_the_turns(tmp_path: Path) -> None:
    top, run = summary_of(tmp_path, BUDGET_SCRIPT, {"harness": {"budget": {"max-turns": 2}}})
    assert run.result["stop_reason"] == "max_turns"
    assert top.heading == "❌ Failure · Stopped by the turn limit"
    assert "2 of 2 turns used (100%)" in top.callout
    assert "<code>harness.budget.max-turns</code> in config.json (now 2)" in top.callout


def test_the_tool_call_limit_names_its_key(tmp_path: Path) -> None:
    top, run = summary_of(tmp_path, BUDGET_SCRIPT, {"harness": {"budget": {"max-tool-calls": 1}}})
    assert run.result["stop_reason"] == "max_tool_calls"
    assert top.heading == "❌ Failure · Stopped by the tool-call limit"
    assert "the next tool call was blocked before it ran" in top.callout
    assert "<code>harness.budget.max-tool-calls</code> in config.json (now 1)" in top.callout


def test_a_timeout_is_explained_in_seconds_and_names_timeout_minutes(tmp_path: Path) -> None:
    slow = [{"text": "Thinking.", "delay_s": 30}]
    top, run = summary_of(tmp_path, slow, {"timeout-minutes": 0.05})
    assert run.result["stop_reason"] == "timeout"
    assert top.heading == "❌ Failure · Time limit reached"
    assert re.search(r"The run stopped after [\d.]+ s of its 0\.05 min \(\d+%\)", top.callout)
    assert "Raise <code>timeout-minutes</code> in config.json (now 0.05 min)" in top.callout
    assert "minutes)" not in top.html.split("<details>")[0], "no figure in bare minutes on the first screen"


def test_a_schema_failure_shows_the_last_answer_and_names_the_schema(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    script = [{"text": '{"ok": "yes"}'}, {"text": '{"ok": "still"}'}, {"text": '{"ok": "never"}'}]
    top, run = summary_of(tmp_path, script, {"harness": {"output-schema": schema}})
    assert run.result["stop_reason"] == "invalid_output"
    assert top.heading == "❌ Failure · The answer did not match the output schema"
    assert "<code>harness.output-schema</code> in the config" in top.callout
    last = top.section("The model's last answer")
    assert "{&quot;ok&quot;: &quot;never&quot;}" in last and "<pre" in last


def test_the_structured_output_is_shown_as_json(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    top, run = summary_of(tmp_path, [{"text": '{"ok": true}'}], {"harness": {"output-schema": schema}})
    assert run.returncode == 0
    shown = top.section("Structured Output")
    assert "matched <code>output-schema</code> at the first answer" in shown
    assert '<pre lang="json"><code>{\n  &quot;ok&quot;: true\n}\n</code></pre>' in shown
    assert "<h3>Answer</h3>" not in top.html


def test_a_provider_error_is_quoted_inert(tmp_path: Path) -> None:
    script = [{"error": {"message": "upstream <b>overloaded</b> *now*", "kind": "fatal"}}]
    top, run = summary_of(tmp_path, script)
    assert run.result["stop_reason"] == "error"
    assert top.heading == "❌ Failure · The run failed"
    assert "upstream &lt;b&gt;overloaded&lt;/b&gt; *now*" in top.callout
    assert "check the provider's status" in top.callout


def test_an_invalid_config_value_names_the_key_not_a_generic_hint(tmp_path: Path) -> None:
    top, run = summary_of(tmp_path, TOOL_SCRIPT, {"harness": {"budget": {"max-turns": "ten"}}})
    assert run.returncode == 2
    assert top.heading == "❌ Failure · The run could not start"
    assert "Correct <code>harness.budget.max-turns</code> in the config" in top.callout
    assert "prompt.txt" not in top.callout
    assert top.facts.startswith("<strong>config.json</strong> · <code>unknown</code> · stop reason"), top.facts
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("aw-harness: error: ") and "Fix: Correct harness.budget.max-turns" in last


def _state(model: str = "anthropic/claude-sonnet-4-5", audience: Audience = "cli") -> RunState:
    state = RunState.for_model(model)
    state.record.reporting = Reporting(audience)
    return state


def test_a_cancelled_run_says_so_and_keeps_what_it_did() -> None:
    top = header(render_run_summary(RunResult.ended("cancelled", "m", _state())))
    assert top.heading == "⏹️ Cancelled · Stopped before it finished"
    assert "The run was cancelled after 0 turns" in top.callout and "Fix" not in top.callout


def test_a_run_cancelled_while_it_starts_names_the_extension_it_was_setting_up() -> None:
    """A stop during an MCP server's start (``tests/mcp/test_stop_during_start.py``) ends the run
    before its first request: the first screen says what it was waiting for."""
    state = _state()
    state.record.setting_up = "mcp-servers"
    top = header(render_run_summary(RunResult.ended("cancelled", "m", state, "stopped while the run was starting")))
    assert "cancelled while it was still starting (setting up <code>mcp-servers</code>)" in top.callout
    assert "after 0 turns" not in top.callout


def test_a_deadline_while_the_run_starts_names_what_it_waited_for_and_what_to_look_at() -> None:
    """The deadline during an MCP server's start ends the run as a stop signal does
    (``Harness.end_unfinished``): the callout says the run never got to its first request,
    which extension it was setting up, and to look at that before raising the time limit."""
    state = _state(audience="action")
    state.record.publish_limits({"minutes": 2.5})
    state.record.setting_up = "mcp-servers"
    ended = RunResult.ended("timeout", "m", state, "stopped while the run was starting (timeout)")
    top = header(render_run_summary(ended))
    assert top.heading == "❌ Failure · Time limit reached"
    assert "while it was still starting (setting up <code>mcp-servers</code>), before its first request" in top.callout
    assert (
        "Find out why <code>mcp-servers</code> did not finish starting (its lines in the log), "
        "or raise the <code>timeout-minutes</code> input (now 2.5 min)"
    ) in top.callout
    state.record.setting_up = None
    started = header(render_run_summary(RunResult.ended("timeout", "m", state)))
    assert "while it was still starting" not in started.callout
    assert "</strong> Raise the <code>timeout-minutes</code> input" in started.callout


def test_a_refused_key_names_the_input_in_the_action_and_the_variable_on_the_command_line() -> None:
    refused = "invalid x-api-key (HTTP 401)"
    action = header(
        render_run_summary(RunResult.ended("credentials_refused", "anthropic/x", _state(audience="action"), refused))
    )
    assert action.heading == "❌ Failure · The provider refused the credentials"
    assert "the secret behind the <code>anthropic-api-key</code> input" in action.callout
    cli = header(render_run_summary(RunResult.ended("credentials_refused", "anthropic/x", _state(), refused)))
    assert "the key in <code>ANTHROPIC_API_KEY</code>" in cli.callout


@pytest.mark.parametrize(
    ("audience", "named"),
    [
        ("action", "the <code>max-turns</code> input (now 3)"),
        ("cli", "<code>harness.budget.max-turns</code> in config.json (now 3)"),
        ("gh-aw", "<code>GH_AW_MAX_TURNS</code> (the workflow's limit) (now 3)"),
    ],
)
def test_a_limit_is_named_as_the_one_who_started_the_run_sets_it(audience: Audience, named: str) -> None:
    state = _state(audience=audience)
    state.record.publish_limits({"turns": 3})
    state.journal.record_budget_stop({"budget": "turns", "used": 3.0, "limit": 3, "trigger": "max_turns"})
    top = header(render_run_summary(RunResult.ended("max_turns", state.model, state)))
    assert named in top.callout


def test_a_paused_workflow_says_how_to_resume() -> None:
    top = header(render_run_summary(RunResult.ended("paused", "m", _state(audience="action"))))
    assert top.heading == "⏸️ Paused · Workflow paused"
    assert "<code>workflow-decision</code>" in top.html.split("<details>")[0]


@pytest.mark.parametrize(
    ("exc", "audience", "heading", "fix"),
    [
        (
            InvocationError("Input 'max-turns': should be a valid integer (got 'ten')", Setting("max-turns", "input")),
            "action",
            "❌ Failure · Invalid input 'max-turns'",
            "Correct the <code>max-turns</code> input under the step's <code>with:</code>",
        ),
        (
            InvocationError("GH_AW_MAX_TURNS: not a whole number: 'x'", Setting("GH_AW_MAX_TURNS", "variable")),
            "gh-aw",
            "❌ Failure · The run could not start",
            "Correct the <code>GH_AW_MAX_TURNS</code> variable",
        ),
        (
            MissingCredentialsError("no credentials", "anthropic/claude-sonnet-4-6", ("ANTHROPIC_API_KEY",)),
            "action",
            "❌ Failure · No credentials for the model",
            "Set the <code>anthropic-api-key</code> input, e.g. "
            "<code>anthropic-api-key: ${{ secrets.ANTHROPIC_API_KEY }}</code>",
        ),
    ],
)
def test_a_run_that_could_not_start_names_what_to_change(
    exc: InvocationError, audience: Audience, heading: str, fix: str
) -> None:
    result = RunResult.invocation_error(exc, "anthropic/claude-sonnet-4-6")
    top = header(render_failure_summary(result, Reporting(audience)))
    assert top.heading == heading
    assert fix in top.callout


def test_every_stop_reason_has_an_explanation_with_a_title_and_a_sentence() -> None:
    for reason in [*EXPLAINERS, "some_future_reason"]:
        for audience in ("action", "cli", "gh-aw"):
            explanation = explain(RunResult.ended(reason, "m", _state(audience=audience), "it broke"), audience)
            assert explanation.title and explanation.why, reason
            assert "\n" not in explanation.plain()


@pytest.mark.parametrize("kind", BUDGET_KINDS, ids=lambda k: k.name)
@pytest.mark.parametrize("audience", ["action", "cli", "gh-aw"])
def test_every_budget_kind_says_the_figures_and_where_its_limit_is_set(kind: BudgetKind, audience: Audience) -> None:
    state = _state(audience=audience)
    limit = 2.5 if kind.gate == "deadline" else 40.0
    state.record.publish_limits({kind.name: limit})
    state.journal.record_budget_stop({"budget": kind.name, "used": limit, "limit": limit})
    top = header(render_run_summary(RunResult.ended(kind.stop_reason, state.model, state)))
    title = "Time limit reached" if kind.gate == "deadline" else f"Stopped by the {kind.limit_name}"
    assert top.heading == f"❌ Failure · {title}"
    assert top.callout.startswith("[!CAUTION]")
    if kind.gate == "deadline" and audience == "gh-aw":  # gh-aw's limit is what was left when the harness started
        assert "of the 2.5 min left of the workflow's time when it started" in top.callout
    elif kind.gate == "deadline":
        assert "of its 2.5 min" in top.callout
    else:
        figure = f"{limit:,.{kind.decimals}f}" if kind.decimals else f"{limit:,.0f}"
        assert f"{figure} of {figure} {kind.label.lower()} used (100%)" in top.callout
    if audience == "action":
        named = f"the <code>{kind.action_input}</code> input"
    elif audience == "gh-aw" and kind.gh_aw_env:
        named = f"<code>{kind.gh_aw_env}</code> (the workflow's limit)"
    else:
        where = "config.json" if audience == "cli" else "the engine's config file (AW_HARNESS_CONFIG)"
        named = f"<code>{kind.config_key}</code> in {where}"
    if kind.gate == "deadline" and audience == "gh-aw":
        assert f"Raise {named} or narrow" in top.callout, "the setting, not the time left, is what to raise"
    else:
        assert f"Raise {named} (now " in top.callout


# ---- the header names the workflow and the model (spec §8.5.3), per entry point ----------------

ONE_STEP_WORKFLOW = """\
version: 1
id: nightly-notes
command: notes
description: One step
start: only
steps:
  only:
    prompt: "Say done."
    permissions: {tools: [read]}
    transitions: {done: $done}
"""


def test_inside_gh_aw_the_header_names_gh_aws_workflow(tmp_path: Path) -> None:
    top, run = summary_of_env(tmp_path, GITHUB_AW="true", GITHUB_WORKFLOW="Issue *triage* <b>")
    assert run.returncode == 0, run.stderr[-2000:]
    assert top.facts.startswith("<strong>Issue *triage* &lt;b&gt;</strong> · in "), top.facts
    assert top.facts.endswith("<code>faux/scripted</code>"), "the model too"


def summary_of_env(tmp: Path, **env: str) -> tuple[Header, Any]:
    run = scripted_run(tmp, [{"text": "Done."}], **env)
    return header((tmp / "summary.md").read_text()), run


def test_a_long_workflow_name_is_cut_so_the_first_screen_stays_one(tmp_path: Path) -> None:
    top, _ = summary_of_env(tmp_path, GITHUB_AW="true", GITHUB_WORKFLOW="w" * 500)
    assert f"<strong>{'w' * 100}</strong> · in " in top.facts and "w" * 101 not in top.facts


def test_the_action_names_github_workflow(tmp_path: Path) -> None:
    ws = tmp_path / "workspace"
    ws.mkdir()
    script = write_script(ws, [{"text": "Done."}])
    inputs = {"model": "faux/scripted", "prompt": "Do the task.", "upload-artifacts": "false"}
    run = run_action(tmp_path, inputs, {"AW_FAUX_SCRIPT": str(script), "GITHUB_WORKFLOW": "Nightly report"})
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    top = header(run.summary)
    assert top.facts.startswith("<strong>Nightly report</strong> · in "), top.facts
    assert "<code>faux/scripted</code>" in top.facts


def test_a_declarative_workflow_is_named_by_its_id(tmp_path: Path) -> None:
    workflow = write_workflow(tmp_path / "wf", ONE_STEP_WORKFLOW, name="notes.workflow.yml")
    script = tmp_path / "script.json"
    done = {"name": "workflow_complete_step", "arguments": {"outcome": "done", "summary": "said it"}}
    script.write_text(json.dumps([{"tool_calls": [done]}]))
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"engine": {"model": "faux/scripted"}, "harness": {"faux-script": str(script)}}))
    env = base_env(tmp_path, GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"), GITHUB_WORKFLOW="Not this one")
    run = run_cli(["workflow", "run", str(workflow), "--input", "x", "--config", str(config)], env)
    assert run.returncode == 0, run.stderr[-3000:]
    top = header((tmp_path / "summary.md").read_text())
    assert top.facts.startswith("<strong>nightly-notes</strong> · in "), top.facts


def test_a_run_that_could_not_start_names_the_workflow_too() -> None:
    exc = InvocationError("Input 'max-turns': should be a valid integer (got 'ten')", Setting("max-turns", "input"))
    result = RunResult.invocation_error(exc, "anthropic/claude-sonnet-4-6")
    top = header(render_failure_summary(result, Reporting("action", workflow="Nightly report")))
    assert top.facts.startswith("<strong>Nightly report</strong> · <code>anthropic/claude-sonnet-4-6</code> · ")
