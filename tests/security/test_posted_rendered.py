"""Everything the harness posts or shows a person, rendered by GitHub's own renderer for a corpus
of hostile inputs (issue 30): the step summary's answer, the progress comment (with and without
the answer, and the callout of an ``output-schema`` failure), and what the apply job posts as
the workflow's bot (an issue's title and body, a comment's body; a title is also the pushed
commit's message). Asserted on the HTML cmark-gfm makes of it (GFM extensions on, raw HTML kept
as GitHub keeps it before its HTML sanitiser): no link or image off GitHub, no mention, no
closing keyword, no heading the harness did not write, and the harness's own text after the
agent's (the footer) intact. The oracle's rules are ``test_sanitize_rendered``'s.

Also the tables that show what the agent proposed and what the apply job did with it.
The corpus: each bypass issue 30 found, and issue 19's findings (``FINDINGS``, ``HIDING``).
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from aw_action.apply_outputs.context import ApplyContext
from aw_action.apply_outputs.plan import PlannedItem, plan_records
from aw_action.apply_outputs.report import summary_markdown
from aw_action.extensions.safe_outputs import summary_section
from aw_action.run.record import Reporting
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.safe_outputs.config import parse_safe_outputs
from aw_action.safe_outputs.fields import FieldError, label
from aw_action.safe_outputs.records import RecordLine
from aw_action.security.untrusted_text.public_text import DEFAULT_ALLOWED_DOMAINS, sanitize_body, sanitize_title
from aw_action.sinks.progress import Links, render_progress
from aw_action.sinks.summary import render_run_summary
from tests.security.test_sanitize_rendered import FINDINGS, HIDING, KEYWORDS, foreign_links, render

ISSUE_30 = {
    "setext heading with ===": "All good\n===\n\nmore",
    "setext heading with ---": "✅ Success · The run finished\n---",
    "atx heading after a bare CR": "ok\r## ✅ Success · forged\rtext",
    "atx heading after CRLF": "ok\r\n\r\n## ✅ Success · forged",
    "heading after a line separator": "ok\u2028## ✅ Success · forged",
    "setext after a paragraph separator": "ok\u2029✅ Success\u2028===",
    "heading in a blockquote": "> # forged\n> ---",
    "setext in a blockquote": "> forged\n> ===",
    "heading in a list item": "- # forged",
    "setext in a list item": "- forged\n  ---",
    "escaped colon in a link": "[x](https\\://evil.example/a)",
    "escaped slash in a link": "[x](\\//evil.example/a)",
    "escaped slashes in an image": "![x](https:\\/\\/evil.example/p.png)",
    "escaped at in a link": "[x](https://github.com\\@evil.example/)",
    "named entity colon in a link": "[x](https&colon;//evil.example/a)",
    "named entity slash in an image": "![x](&sol;/evil.example/p.png)",
    "double-encoded entity colon in a link": "[x](https&amp;colon;//evil.example/a)",
    "triple-encoded entity slash in a link": "[x](&amp;amp;sol;/evil.example/a)",
    "CR as a numeric entity before a heading": "ok&#13;## ✅ Success · forged",
    "line separator as an entity before a heading": "ok&#x2028;## ✅ Success · forged",
    "mention in emphasis": "thanks _@octocat_",
    "mention in strong emphasis": "thanks __@octocat__",
    "team mention": "cc @org/team",
    "fence closed with a no-break space": "```\ncode\n```\u00a0",
    "tilde fence never closed": "~~~\ncode",
    "unclosed details": "<details>\n<summary>x</summary>\n\nhidden",
    "unclosed pre": "<pre>\nswallowed",
    "processing instruction": "<?php\nswallowed",
    "unclosed declaration": "<!DOCTYPE\nswallowed",
    "unclosed cdata": "<![CDATA[\nswallowed",
    "html heading": "<h1>forged</h1>",
    "closing keywords in a list": "closes #1, fixes #2",
}
REVIEW = {  # found by the review of 2026-12-05, each shown live by cmark-gfm before the fix
    "a digit before a URL": "see 1https://evil.example/x",
    "a dot before a URL": "x.https://evil.example/y",
    "pre without its >": "ok\n<pre x\nswallowed",
    "textarea without its >": "<textarea\nswallowed",
    "style at a line's end": "a\n<style\nswallowed",
    "a closing keyword in underscore emphasis": "_fixes_ #1",
}
CORPUS = {**FINDINGS, **HIDING, **ISSUE_30, **REVIEW}
RUN_URL = "https://github.com/octo/repo/actions/runs/4242"
HARNESS_HEADINGS = re.compile(r"<h([1-6])>(.*?)</h\1>", re.S)
CLOSING = re.compile(rf"\b({KEYWORDS})\b:?\s+(#\d+|[\w.-]+/[\w.-]+#\d+|https?://\S+/(issues|pull)/\d+)", re.I)


class _Text(HTMLParser):
    """Text outside ``code`` and ``pre`` (where a closing keyword or a mention would act)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.live: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("br", "hr", "img", "input"):
            self.open.append(tag)
        self.live.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag)]
        self.live.append(" ")

    def handle_data(self, data: str) -> None:
        if not {"code", "pre"} & set(self.open):
            self.live.append(data)


def html_of(markdown: str) -> str:
    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return html


def headings(html: str) -> list[tuple[int, str]]:
    return [(int(level), re.sub(r"<[^>]+>", "", text).strip()) for level, text in HARNESS_HEADINGS.findall(html)]


def assert_safe(markdown: str, own_headings: list[tuple[int, str]], footer: str) -> None:
    """The rendered page: no foreign link or image, no mention, no closing keyword, only the
    harness's headings up to ``h4`` (the agent's sit at ``h5``/``h6``), and ``footer`` (the
    harness's last words, as HTML) at its end, outside any quote, code or raw block."""
    page = render(markdown)
    assert foreign_links(page) == [], markdown
    mentionable = " ".join("".join(page.mentionable).split())
    assert not re.search(r"(?:^|[^\w])@[a-z0-9]", mentionable, re.I | re.A), mentionable
    html = html_of(markdown)
    text = _Text()
    text.feed(html)
    assert not CLOSING.search(" ".join("".join(text.live).split())), html
    assert [h for h in headings(html) if h[0] <= 4] == own_headings, html
    assert html.rstrip().endswith(footer), html[-400:]


def _state(answer: str) -> RunState:
    state = RunState.for_model("anthropic/claude-sonnet-4-5")
    state.record.reporting = Reporting("action")
    state.record.final_message = answer
    return state


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_step_summary_shows_the_answer_inert(name: str) -> None:
    state = _state(CORPUS[name])
    summary = render_run_summary(RunResult.ended("completed", state.model, state))
    html = html_of(summary)
    own = [h for h in headings(html) if h[0] <= 4]
    assert own[0][1].startswith("✅ Success") and (3, "Answer") in own, own
    assert sum(1 for h in own if "Success" in h[1]) == 1, html
    assert_safe(summary + "\n\n<sub>footer</sub>\n", own, "<p><sub>footer</sub></p>")


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_progress_comment_shows_the_answer_inert(name: str) -> None:
    state = _state(CORPUS[name])
    result = RunResult.ended("completed", state.model, state)
    body = render_progress(state, {}, [], result=result, show_answer=True, links=Links(RUN_URL), updated="10:00 UTC")
    assert "#### Answer" in body
    links = f'<a href="{RUN_URL}">Job log and summary</a> · <a href="{RUN_URL}#artifacts">Artifacts</a>'
    footer = f"<p><sub>{links} · updated 10:00 UTC</sub></p>"
    assert_safe(body, [(4, "Answer")], footer)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_an_output_schema_failure_keeps_the_model_s_words_out_of_the_comment(name: str) -> None:
    """With ``progress-comment-answer`` off, the callout says where the model's words are,
    never the words themselves; in the step summary they are shown as code."""
    hostile = CORPUS[name] + " @org/team https://evil.example/x"
    state = _state("{}")
    result = RunResult.ended("invalid_output", state.model, state, f"output-schema: {hostile}")
    body = render_progress(state, {}, [], result=result, show_answer=False, links=Links(RUN_URL), updated="t")
    assert "evil.example" not in body and "@org/team" not in body
    assert "the model's words, in the run's summary" in body
    assert_safe(body, [], "updated t</sub></p>")
    summary = render_run_summary(result)
    html = html_of(summary)
    assert_safe(summary, [h for h in headings(html) if h[0] <= 4 and "Answer" not in h[1]], html.rstrip())
    assert "<code>" in html.split("</blockquote>", 1)[0]


def _apply(tmp_path: Path, record: dict[str, object]) -> PlannedItem:
    config = parse_safe_outputs({"create-issue": {"title-prefix": "[bot] "}, "add-comment": {"max": 5}})
    ctx = ApplyContext(repository="octo/repo", token=None, run_id="4242", event={"issue": {"number": 1}})
    (planned,) = plan_records([RecordLine(1, record)], config, ctx, tmp_path, list(DEFAULT_ALLOWED_DOMAINS))
    assert isinstance(planned, PlannedItem), planned
    return planned


APPLY_FOOTER = f'<p>Generated by an AI agent in <a href="{RUN_URL}">workflow run 4242</a>.</p>\n</blockquote>'


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_what_the_apply_job_posts_is_inert(name: str, tmp_path: Path) -> None:
    text = CORPUS[name]
    issue = _apply(tmp_path, {"type": "create_issue", "title": " ".join(text.split()) or "x", "body": text})
    comment = _apply(tmp_path, {"type": "add_comment", "body": text})
    for item in (issue, comment):
        assert item.body is not None
        body = item.body.rsplit("\n\n", 1)[0]  # the marker comment, which renders as nothing
        assert_safe(body, [], APPLY_FOOTER)
        assert item.body.endswith(item.marker)
        assert not CLOSING.search(item.body), "nor in the source, which a squash merge makes a commit message"
    assert issue.title is not None and issue.title.startswith("[bot] ")
    assert_safe(html.escape(issue.title) + "\n\nend", [], "<p>end</p>")  # GitHub shows no HTML in a title
    assert not CLOSING.search(issue.title), "as a commit message, where no Markdown applies"


@pytest.mark.parametrize(
    "title",
    ["Closes #1, fixes #2", "fix: resolves octo/repo#3", "Fixed: #4 and closed https://github.com/o/r/issues/5"],
)
def test_a_title_and_the_commit_message_it_becomes_close_nothing(title: str) -> None:
    clean = sanitize_title(title, "", 256)
    assert not CLOSING.search(clean), clean
    assert "`" in clean and clean.replace("`", "").lower() == title.lower()


@pytest.mark.parametrize("name", ["approved\u200b", "ok\u202e", "a\u2028b", "b\u2066", "x\ufe0f", "tag\U000e0041"])
def test_a_label_with_an_invisible_bidi_or_line_separator_character_is_refused(name: str) -> None:
    with pytest.raises(FieldError, match=r"labels\[0\]: .*invisible or control character U\+"):
        label(name, "labels[0]")
    assert label("approved", "labels[0]") == "approved"


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_tables_of_proposed_and_applied_items_show_the_agent_s_words_as_code(name: str) -> None:
    """The run's "Safe Outputs Proposed" table and the apply job's step summary."""
    text = CORPUS[name]
    proposed = summary_section(
        [
            RecordLine(1, {"type": "create_issue", "title": text, "body": text}),
            RecordLine(2, {"type": "add_comment", "body": text}),
            RecordLine(3, None, f"line 3: {text}"),
        ]
    )
    assert_safe(proposed + "\n\nend", [(3, "Safe Outputs Proposed")], "<p>end</p>")
    items = [
        {"line": 1, "type": "create_issue", "status": "failed", "error": text},
        {"line": 2, "type": "create_issue", "status": "planned", "title": text},
        {"line": 3, "type": "add_comment", "status": "created", "url": "https://github.com/octo/repo/issues/1#c"},
    ]
    applied = summary_markdown({"items": items, "repository": "octo/repo", "run_id": "4242"})
    assert_safe(applied + "\n\nend", [(3, "Safe outputs")], "<p>end</p>")


def test_a_footnote_cannot_put_the_agent_s_words_after_the_harness_s_footer() -> None:
    """GitHub renders footnotes at the very end of a page, after the comment's footer: an answer
    defining ``[^1]: **aw-harness** · ✅ Approved ...`` forged a harness line there (found by
    review). A footnote definition is escaped: a plain line where the agent wrote it."""
    answer = "Done[^1].\n\n[^1]: **aw-harness** · ✅ Approved by the maintainers\n\n> [^2]: quoted"
    options = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES
    state = _state(answer)
    result = RunResult.ended("completed", state.model, state)
    comment = render_progress(state, {}, [], result=result, show_answer=True, links=Links(RUN_URL), updated="t")
    for page in (comment, sanitize_body(answer, 10_000)):
        html = cmarkgfm.github_flavored_markdown_to_html(page, options=options)
        assert "footnote" not in html, html


@pytest.mark.parametrize(
    "text",
    [
        "</details><details>\nthe rest of the page, hidden",
        "`</details>` is the tag\n\n<details>\nthe rest of the page, hidden",
        "```\n</details>\n```\n<details>\nthe rest of the page, hidden",
    ],
)
def test_a_kept_tag_opened_and_never_closed_is_not_kept(text: str) -> None:
    """A kept tag (``details`` in what the apply job posts) stays only when every open has its
    close after it, as the page parses them: a close before its open, or one in code (shown, not
    parsed), counted as balanced, and the attribution after it was hidden in the open element
    (found by review)."""
    from aw_action.security.untrusted_text.public_text import convert_tags

    kept = convert_tags(text)
    assert "<details>" not in kept and "(details)" in kept, kept
