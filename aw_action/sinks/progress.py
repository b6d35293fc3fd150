"""The progress comment's body: one Markdown comment that tells the run's story as it goes.

Shape while the run goes, then when it ended::

    <!-- aw-harness:progress -->
    **aw-harness** · ⏳ working on turn 3 · 1 min 05 s · $0.12 so far · `claude-sonnet-4-5`

    - [x] Turn 1 · `npm test` ✅ · `read src/app.py` ✅
    - [x] Turn 2 · `python3 tests/run.py` ❌ exit 3
    - [ ] Turn 3 · `npm test`                 (a workflow heads each prompt's turns "Step N")

    Effective tokens: 3,579 of 200,000 (1.8%) · Time: 1 min 05 s of 5 min (22%) · $0.12
    <sub>[Job log and summary](…/actions/runs/1) · [Artifacts](…#artifacts) · updated 20:15:46 UTC</sub>

    **aw-harness** · ❌ Failure · Time limit reached · in 4 min 32 s · $0.41 · 6 turns
    > [!CAUTION]
    > why, with the figures · **Fix:** the setting to change   (``run/explain.py``)
    ... the turns, the usage, then on success (``progress-comment-answer``) the answer or the
    structured output, and the links.

What is model-produced is made inert, since a comment is public and may notify people: a call
is its command or path as one code span (no mention, link or HTML works in one; invisible
characters removed), shortened, and a failure's end as the harness words it (``exit 3``) or the
first line of its error as another code span; a tool name the run's registry does not know is
shown as ``(unknown tool)``, without its error (which repeats the name); the answer goes
through the sanitiser (``sinks/answer.py``) and only when the workflow asks for it. A turn the
run stopped before it sent anything is left out. The list keeps the last ``MAX_TURN_LINES``
turns, so the body stays far below GitHub's 65,536 characters.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any

from aw_action.lazy_dataclass import dataclass
from aw_action.run import human
from aw_action.run.budget_kinds import BUDGET_KINDS, Limit
from aw_action.run.explain import explain
from aw_action.run.explanation import Explanation
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.sinks import markdown as md
from aw_action.sinks.answer import answer_markdown
from aw_action.sinks.closing import icon
from aw_action.sinks.summary_story import shorten

MARKER = "<!-- aw-harness:progress -->"
MAX_TURN_LINES = 30
CALLS_PER_TURN = 4
CALL_CHARS = 80
ERROR_CHARS = 80
ANSWER_CHARS = 3_000


@dataclass
class CallLine:
    what: str
    """The command or path (model-produced: shown as one code span), or ``(unknown tool)``."""
    ok: bool | None = None
    status: str = ""
    """A failed command's end in the harness's words (``exit 3``)."""
    error: str = ""
    """A failure without a status: the first line of the error (tool-produced: shown as code)."""

    def text(self) -> str:
        mark = {True: " ✅", False: " ❌", None: ""}[self.ok]
        why = self.status or (md.code(shorten(self.error, ERROR_CHARS)) if self.error else "")
        return f"{md.code(shorten(self.what, CALL_CHARS))}{mark}" + (f" {why}" if why else "")


@dataclass
class TurnLine:
    turn: int
    calls: list[CallLine] = field(default_factory=list)
    done: bool = False
    prompt: int = 1
    """Which prompt of the run (a workflow's step) the turn belongs to."""
    stopped: str | None = None
    """The stop reason of a turn the run cut short."""

    @property
    def never_sent(self) -> bool:
        """Cut short before it did anything: not a turn anyone needs to read about."""
        return self.stopped is not None and not self.calls

    def text(self) -> str:
        shown = [c.text() for c in self.calls[:CALLS_PER_TURN]]
        if len(self.calls) > CALLS_PER_TURN:
            shown.append(f"+{len(self.calls) - CALLS_PER_TURN} more")
        what = " · ".join(shown) if shown else ("answered" if self.done else "thinking")
        stop = f" · stopped ({self.stopped})" if self.stopped else ""
        return f"- [{'x' if self.done else ' '}] Turn {self.turn} · {what}{stop}"


@dataclass(frozen=True)
class Links:
    run_url: str | None = None
    """The workflow run's page: the job's log and the step summaries are there."""


def render_progress(
    state: RunState,
    limits: Mapping[str, Limit],
    turns: Sequence[TurnLine],
    *,
    result: RunResult | None = None,
    show_answer: bool = False,
    links: Links = Links(),
    updated: str = "",
) -> str:
    """The body while the run goes (``result`` None) or once it ended."""
    shown = [t for t in turns if not (result is not None and t.never_sent)]
    lines = [MARKER, _head(state, shown, result), ""]
    if result is not None:
        explanation = explain(result, state.record.reporting.audience)
        if explanation.level != "notice":
            lines += [_callout(explanation, show_answer), ""]
    lines += _turn_lines(shown)
    lines += ["", _usage(state, limits)]
    if result is not None and show_answer and result.conclusion == "success":
        lines += _answer(state)
    footer = _footer(links, updated)
    if footer:
        lines += ["", footer]
    return "\n".join(lines) + "\n"


def _head(state: RunState, turns: Sequence[TurnLine], result: RunResult | None) -> str:
    model = md.code(state.model)
    if result is None:
        running = [t.turn for t in turns if not t.done]
        where = f"working on turn {running[-1]}" if running else "working"
        spent = f"{human.duration(state.elapsed_ms / 1000)} · {human.usd(state.ledger.cost_usd)} so far"
        return f"**aw-harness** · ⏳ {where} · {spent} · {model}"
    explanation = explain(result, state.record.reporting.audience)
    ledger = state.ledger
    facts = [
        f"in {human.duration(state.elapsed_ms / 1000)}",
        human.usd(ledger.cost_usd),
        human.count(len(ledger.turns), "turn"),
    ]
    title = md.escape(explanation.title)
    ended = f"{icon(result.conclusion, explanation.level)} {result.conclusion.capitalize()}"
    return f"**aw-harness** · {ended} · {title} · {' · '.join(facts)} · {model}"


def _callout(explanation: Explanation, model_text: bool) -> str:
    """Why and the fix; what the model wrote only when the comment may show its answer."""
    fix = [f"**Fix:** {md.words(explanation.fix, model_text)}"] if explanation.fix else []
    why = md.words(explanation.why, model_text)
    return md.alert("caution" if explanation.level == "error" else "warning", [why, *fix])


def _turn_lines(turns: Sequence[TurnLine]) -> list[str]:
    lines: list[str] = []
    hidden = len(turns) - MAX_TURN_LINES
    if hidden > 0:
        lines.append(f"- … {hidden:,} earlier turn{'s' if hidden != 1 else ''}")
    steps = len({t.prompt for t in turns}) > 1
    previous = None
    for t in turns[-MAX_TURN_LINES:]:
        if steps and t.prompt != previous:
            lines.append(f"- **Step {t.prompt}**")
            previous = t.prompt
        lines.append(t.text())
    return lines


def _usage(state: RunState, limits: Mapping[str, Limit]) -> str:
    parts = []
    for kind in BUDGET_KINDS:
        limit = limits.get(kind.name)
        if limit is None and kind.name != "effective_tokens":
            continue
        used = kind.used(state) or 0.0
        of = f" of {human.limit(kind, limit.limit)} ({human.percent(used, limit.limit)})" if limit else ""
        parts.append(f"{kind.label.removesuffix(' (minutes)')}: {human.amount(kind, used)}{of}")
    parts.append(human.usd(state.ledger.cost_usd))
    return " · ".join(parts)


def _answer(state: RunState) -> list[str]:
    checked = state.record.structured_output
    if checked is not None and checked.valid:
        text = json.dumps(checked.value, indent=2, ensure_ascii=False)
        cut = "\n…" if len(text) > ANSWER_CHARS else ""
        return ["", "#### Structured output", "", md.code_block(text[:ANSWER_CHARS] + cut, "json")]
    answer: Any = state.record.final_message
    if not answer.strip():
        return []
    shaped = answer_markdown(answer, ANSWER_CHARS)
    note = ["", "_The answer is cut here; the run's summary has more._"] if shaped.cut else []
    return ["", "#### Answer", "", shaped.markdown, *note]


def _footer(links: Links, updated: str) -> str:
    parts = []
    if links.run_url:
        parts += [f"[Job log and summary]({links.run_url})", f"[Artifacts]({links.run_url}#artifacts)"]
    if updated:
        parts.append(f"updated {updated}")
    return f"<sub>{' · '.join(parts)}</sub>" if parts else ""
