"""The progress comment's body: one Markdown comment that says where the run is.

Shape::

    <!-- aw-harness:progress -->
    **aw-harness** · `claude-sonnet-4.5` · ⏳ working on turn 3
    - [x] Turn 1 · bash ×2, read
    - [x] Turn 2 · edit
    - [ ] Turn 3 · bash                   (a run of several prompts, a workflow, heads each
                                          prompt's turns with "Step N")
    Effective tokens: 3,579 of 200,000 (1.8%) · Turns: 2 of 10 (20.0%) · 3,163 raw tokens · $0.0121
    [Run log](https://github.com/o/r/actions/runs/1) · updated 20:15:46 UTC

Contract: nothing model-produced appears in it (a comment is public and may notify people): the
turn lines name tools of the run's registry (the workflow author's choice; a name the model made
up is not shown), the rest is numbers and the run's own words. The list keeps the last
``MAX_TURN_LINES`` turns and says how many earlier ones it left out, so the body stays far
below GitHub's 65,536-character limit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from aw_action.run.budget_kinds import BUDGET_KINDS, Limit
from aw_action.run.state import RunState
from aw_action.sinks import markdown as md

MARKER = "<!-- aw-harness:progress -->"
MAX_TURN_LINES = 30
_ENDED = {"success": "✅ completed", "cancelled": "⏹️ cancelled", "skipped": "⏭️ skipped"}


@dataclass
class TurnLine:
    turn: int
    tools: list[str] = field(default_factory=list)
    failed: int = 0
    done: bool = False
    prompt: int = 1
    """Which prompt of the run (a workflow's step) the turn belongs to."""

    def text(self) -> str:
        counts = Counter(self.tools)
        names = ", ".join(f"{md.code(name)} ×{n}" if n > 1 else md.code(name) for name, n in counts.items())
        failed = f" ({self.failed} failed)" if self.failed else ""
        what = f" · {names}{failed}" if names else ""
        return f"- [{'x' if self.done else ' '}] Turn {self.turn}{what}"


@dataclass(frozen=True)
class Ending:
    conclusion: str
    stop_reason: str


def render_progress(
    state: RunState,
    limits: Mapping[str, Limit],
    turns: Sequence[TurnLine],
    *,
    ending: Ending | None = None,
    run_url: str | None = None,
    updated: str = "",
) -> str:
    lines = [MARKER, f"**aw-harness** · {md.code(state.model)} · {_status(turns, ending)}", ""]
    hidden = len(turns) - MAX_TURN_LINES
    if hidden > 0:
        lines.append(f"- … {hidden:,} earlier turn{'s' if hidden != 1 else ''}")
    steps = len({t.prompt for t in turns}) > 1
    previous = None
    for t in turns[-MAX_TURN_LINES:]:
        if steps and t.prompt != previous:
            lines.append(f"- **Step {t.prompt}**")
            previous = t.prompt
        lines.append(t.text() + (" · not finished" if ending and not t.done else ""))
    lines += ["", _usage(state, limits)]
    link = f"[Run log]({run_url})" if run_url else ""
    footer = " · ".join(part for part in (link, f"updated {updated}" if updated else "") if part)
    if footer:
        lines += ["", f"<sub>{footer}</sub>"]
    return "\n".join(lines) + "\n"


def _status(turns: Sequence[TurnLine], ending: Ending | None) -> str:
    if ending is None:
        running = [t.turn for t in turns if not t.done]
        return f"⏳ working on turn {running[-1]}" if running else "⏳ working"
    word = _ENDED.get(ending.conclusion, f"❌ {ending.conclusion}")
    return word if ending.stop_reason == "completed" else f"{word} ({md.code(ending.stop_reason)})"


def _usage(state: RunState, limits: Mapping[str, Limit]) -> str:
    parts = []
    for kind in BUDGET_KINDS:
        limit = limits.get(kind.name)
        if limit is None and kind.name != "effective_tokens":
            continue
        used = kind.used(state) or 0.0
        of = f" of {_amount(limit.limit, kind.decimals)} ({md.percent(used, limit.limit)})" if limit else ""
        parts.append(f"{kind.label}: {_amount(used, kind.decimals)}{of}")
    ledger = state.ledger
    parts.append(f"{md.integer(ledger.totals.total)} raw tokens")
    parts.append(md.usd(ledger.cost_usd))
    return " · ".join(parts)


def _amount(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}" if decimals else md.integer(value)
