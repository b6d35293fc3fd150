"""The step summary tells what the agent said and did: its final message, fenced so model text
cannot break the page, and a collapsed list of its tool calls."""

from __future__ import annotations

from pathlib import Path

import cmarkgfm
from cmarkgfm.cmark import Options as cmarkgfmOptions

from aw_action.ai.types import AssistantMessage, TextContent, ToolCall
from aw_action.run.result import Outcome
from aw_action.run.state import RunState
from aw_action.sinks.summary import render_run_summary
from aw_action.sinks.summary_story import (
    COMMAND_CHARS,
    FINAL_MESSAGE_CHARS,
    MAX_COMMANDS,
    agent_commands,
    commands_section,
    final_message_section,
)
from tests.sinks.support import TOOL_SCRIPT, gfm, scripted_run


def gfm_with_html(markdown: str) -> str:
    """As GitHub renders a step summary: raw HTML such as ``<details>`` kept (GitHub then allows
    only a safe list of tags, ``details`` and ``summary`` among them)."""
    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=cmarkgfmOptions.CMARK_OPT_UNSAFE)
    return html


HOSTILE = "Done.\n```\n# Injected heading\n<script>alert(1)</script>\n````\n| a | b |\n</details>"


def test_a_completed_runs_summary_shows_its_final_message_and_tool_calls(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    html = gfm_with_html((tmp_path / "summary.md").read_text())
    assert "<h3>Final Message</h3>" in html
    assert '<pre lang="text"><code>All done.\n</code></pre>' in html
    details = html.split("<details>", 1)[1].split("</details>", 1)[0]
    assert "<summary>Tool calls the agent made (2)</summary>" in details
    assert "<li><code>echo one</code></li>" in details and "<li><code>exit 3</code></li>" in details
    assert run.result["final_message"] == "All done."


def test_model_text_cannot_break_out_of_the_fence() -> None:
    state = RunState.for_model("faux/scripted")
    state.record.finish("completed", HOSTILE)
    commands = ["cat <<'EOF' > x.md\n</details>\n# heading\nEOF", "echo `uname`"]
    html = gfm_with_html(render_run_summary(state, Outcome("success", "completed", 0), {}, commands=commands))
    fenced = html.split("<h3>Final Message</h3>", 1)[1].split("</pre>", 1)[0]
    assert "&lt;script&gt;" in fenced and "# Injected heading" in fenced and "</details>" not in fenced
    assert "<script>" not in html and "<h1>" not in html
    assert html.count("<details>") == 1 and html.count("</details>") == 1
    assert "<code>cat &lt;&lt;'EOF' &gt; x.md &lt;/details&gt; # heading EOF</code>" in html
    assert "<code>echo `uname`</code>" in html


def test_a_long_message_and_many_commands_are_capped() -> None:
    text = "q" * (FINAL_MESSAGE_CHARS + 10)
    section = final_message_section(text)
    assert section.count("q") == FINAL_MESSAGE_CHARS and f"{FINAL_MESSAGE_CHARS + 10:,} characters" in section
    commands = [f"echo {i} " + "y" * 300 for i in range(MAX_COMMANDS + 5)]
    listed = commands_section(commands)
    assert listed.count("\n- ") == MAX_COMMANDS + 1 and "… and 5 more" in listed
    first = listed.split("\n- ", 2)[1]
    assert len(first) == len("``") + COMMAND_CHARS and first.endswith("…`")
    assert f"({MAX_COMMANDS + 5:,})" in listed


def test_tool_calls_read_as_commands_and_paths() -> None:
    message = AssistantMessage(
        content=[
            TextContent(text="Looking."),
            ToolCall(id="1", name="bash", arguments={"command": "ls -la"}),
            ToolCall(id="2", name="read", arguments={"path": "src/app.py"}),
            ToolCall(id="3", name="custom", arguments={"n": 1}),
        ]
    )
    assert agent_commands([message]) == ["ls -la", "read src/app.py", "custom"]


def test_nothing_is_shown_for_a_run_without_message_or_calls() -> None:
    state = RunState.for_model("faux/scripted")
    state.record.finish("budget_exceeded", "Working on step 3.")
    assert state.record.final_message == ""  # a step on the way is no answer
    html = gfm_with_html(render_run_summary(state, Outcome("failure", "budget_exceeded", 1), {}))
    assert "Final Message" not in html and "<details>" not in html


def test_a_failed_run_shows_its_error() -> None:
    state = RunState.for_model("anthropic/claude-sonnet-4-6")
    refused = "the anthropic API refused the credential in ANTHROPIC_API_KEY: invalid x-api-key (HTTP 401)"
    outcome = Outcome("failure", "credentials_refused", 2)
    html = gfm(render_run_summary(state, outcome, {}, error=refused))
    assert "<strong>The run failed.</strong> the anthropic API refused the credential" in html
