"""The step summary tells what the agent said and did: its answer rendered as Markdown that
cannot reshape the page, and its tool calls with how each ended."""

from __future__ import annotations

from pathlib import Path

from aw_action.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.sinks.answer import answer_markdown
from aw_action.sinks.summary import render_run_summary
from aw_action.sinks.summary_story import (
    COMMAND_CHARS,
    FINAL_MESSAGE_CHARS,
    HEADER_CALLS,
    MAX_COMMANDS,
    ToolCallLine,
    answer_section,
    calls_section,
    tool_calls,
)
from tests.sinks.support import TOOL_SCRIPT, scripted_run
from tests.sinks.support import gfm_page as gfm_with_html

HOSTILE = (
    "Done @octocat, fixes #12. See [this](https://evil.example/x) and <img src=x onerror=alert(1)>.\n"
    "<details><summary>hidden</summary>\n\n# Injected heading\n<script>alert(1)</script>\n"
    "```\nan unclosed fence"
)


def test_a_completed_runs_summary_shows_its_answer_and_tool_calls(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    html = gfm_with_html((tmp_path / "summary.md").read_text())
    answer = html.split("<h3>Answer</h3>", 1)[1].split("<h3>", 1)[0]
    assert answer.strip() == "<p>All done.</p>"
    calls = html.split("<h3>Tool calls (2)</h3>", 1)[1].split("</ul>", 1)[0]
    assert "<li>✅ <code>echo one</code> · " in calls
    assert "<li>❌ <code>exit 3</code> · " in calls and " ms · exit 3</li>" in calls
    assert run.result["final_message"] == "All done."


def test_the_answer_renders_as_markdown_outside_any_code_block() -> None:
    text = "# Result\n\n| file | status |\n|---|---|\n| a.py | ok |\n\n```py\nprint(1)\n```\n\n- one\n- two"
    html = gfm_with_html(answer_section(text))
    assert "<h5>Result</h5>" in html, "headings move under the summary's own"
    assert "<table>" in html and "<td>a.py</td>" in html
    assert '<pre lang="py"><code>print(1)\n</code></pre>' in html
    assert "<li>one</li>" in html and "<blockquote>" not in html


def test_model_text_cannot_reshape_the_page() -> None:
    state = RunState.for_model("faux/scripted")
    state.record.finish("completed", HOSTILE)
    calls = [ToolCallLine("bash", "cat <<'EOF' > x.md\n</details>\n# heading\nEOF", True, 5)]
    html = gfm_with_html(render_run_summary(RunResult.ended("completed", state.model, state), calls=calls))
    answer = html.split("<h3>Answer</h3>", 1)[1].split("<h3>Tool calls", 1)[0]
    assert answer.lstrip().startswith("<blockquote>"), "an unclosed fence is kept inside a quote"
    assert answer.rstrip().endswith("</blockquote>")
    assert "<code>@octocat</code>" in answer and "<code>fixes</code> #12" in answer
    assert "evil.example" not in answer.replace("(evil.example/redacted)", "")
    assert "<script>" not in html and "<img" not in html and "<h1>" not in html
    assert html.count("<details>") == html.count("</details>") == 3, "only the summary's own blocks"
    assert "<code>cat &lt;&lt;'EOF' &gt; x.md &lt;/details&gt; # heading EOF</code>" in html


def test_a_long_answer_and_many_calls_are_capped() -> None:
    text = "q" * (FINAL_MESSAGE_CHARS + 10)
    answer = answer_markdown(text, FINAL_MESSAGE_CHARS)
    assert answer.cut and answer.markdown.count("q") < FINAL_MESSAGE_CHARS
    assert f"{FINAL_MESSAGE_CHARS + 10:,} characters" in answer_section(text)
    calls = [ToolCallLine("bash", f"echo {i} " + "y" * 300, i % 7 != 3, 12) for i in range(MAX_COMMANDS + 5)]
    listed = calls_section(calls)
    header, every = listed.split("<details>", 1)
    failed = sum(1 for c in calls if c.ok is False)
    assert f"### Tool calls ({MAX_COMMANDS + 5:,}: {MAX_COMMANDS + 5 - failed:,} ✅ · {failed:,} ❌)" in header
    assert header.count("\n- ❌") == HEADER_CALLS and f"… and {failed - HEADER_CALLS:,} more failed" in header
    assert every.count("\n- ") == MAX_COMMANDS + 1 and "… and 5 more" in every
    first = every.split("\n- ", 2)[1]
    assert first.startswith("✅ `echo 0 ") and "…` · 12 ms" in first
    assert len(first.split("`")[1]) == COMMAND_CHARS


def test_tool_calls_read_as_commands_and_paths_with_how_they_ended() -> None:
    message = AssistantMessage(
        content=[
            TextContent(text="Looking."),
            ToolCall(id="1", name="bash", arguments={"command": "ls -la"}),
            ToolCall(id="2", name="read", arguments={"path": "src/app.py"}),
            ToolCall(id="3", name="bash", arguments={"command": "sleep 100"}),
            ToolCall(id="4", name="custom", arguments={"n": 1}),
        ]
    )
    results = [
        ToolResultMessage(tool_call_id="1", tool_name="bash", content=[TextContent(text="a\nb")]),
        ToolResultMessage(
            tool_call_id="2", tool_name="read", is_error=True, content=[TextContent(text="File not found: src/app.py")]
        ),
        ToolResultMessage(
            tool_call_id="3",
            tool_name="bash",
            is_error=True,
            content=[TextContent(text="(no output)\n\nCommand timed out after 10 seconds")],
        ),
    ]
    calls = tool_calls([message, *results], {"1": 12, "3": 10_003})
    assert [(c.what, c.ok, c.duration_ms, c.status, c.error) for c in calls] == [
        ("ls -la", True, 12, "", ""),
        ("read src/app.py", False, None, "", "File not found: src/app.py"),
        ("sleep 100", False, 10_003, "timed out after 10 s", ""),
        ("custom", None, None, "", ""),
    ]
    html = gfm_with_html(calls_section(calls))
    assert "<li>❌ <code>read src/app.py</code> · <code>File not found: src/app.py</code></li>" in html
    assert "<li>❌ <code>sleep 100</code> · 10 s · timed out after 10 s</li>" in html
    assert "<li>⏹️ <code>custom</code> · not finished</li>" in html


def test_no_answer_is_shown_after_a_stop() -> None:
    state = RunState.for_model("faux/scripted")
    state.record.finish("budget_exceeded", "Working on step 3.")
    assert state.record.final_message == ""  # a step on the way is no answer
    html = gfm_with_html(render_run_summary(RunResult.ended("budget_exceeded", state.model, state)))
    assert "Answer" not in html and "Working on step 3" not in html
