"""Mermaid charts for step summaries: a run's cumulative effective tokens per turn against the
budget (``token_chart``), and the report's bars per run and pie of stop reasons.

GitHub renders ``mermaid`` fenced blocks in step summaries. Series hold only numbers and the title
and axis labels are fixed strings, so nothing run-controlled can break out of the block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_POINTS = 60
"""More points than this are thinned (first and last kept) so the chart stays legible."""
ON_SCALE = 0.25
"""The budget line is drawn only when usage reaches this share of it: a far-off budget would
flatten the usage line against the axis."""


def limit_on_scale(cumulative: Sequence[float], limit: float | None) -> bool:
    return bool(limit) and bool(cumulative) and max(cumulative) >= ON_SCALE * float(limit or 0)


def _thin(points: list[tuple[int, float]]) -> list[tuple[int, float]]:
    if len(points) <= MAX_POINTS:
        return points
    step = (len(points) - 1) / (MAX_POINTS - 1)
    picked = sorted({round(i * step) for i in range(MAX_POINTS)})
    return [points[i] for i in picked]


def token_chart(cumulative: Sequence[float], limit: float | None) -> str:
    """The fenced block, or "" when there is no completed turn to plot; the budget's line only
    when it is on the usage's scale (``limit_on_scale``)."""
    if not cumulative:
        return ""
    points = _thin([(i + 1, float(v)) for i, v in enumerate(cumulative)])
    if not limit_on_scale(cumulative, limit):
        limit = None
    top = max([v for _, v in points] + ([limit] if limit else []))
    y_max = max(1, round(top * 1.1))
    turns = ", ".join(f'"{t}"' for t, _ in points)
    used = ", ".join(str(round(v)) for _, v in points)
    lines = [
        "```mermaid",
        "xychart-beta",
        '    title "Cumulative effective tokens per turn"',
        f'    x-axis "Turn" [{turns}]',
        f'    y-axis "Effective tokens" 0 --> {y_max}',
        f"    line [{used}]",
    ]
    if limit:
        lines.append(f"    line [{', '.join(str(round(limit)) for _ in points)}]")
    lines.append("```")
    return "\n".join(lines)


def bar_chart(title: str, axis: str, values: Sequence[float], places: int = 2) -> str:
    """A fenced bar chart of ``values``, one bar per run, the bars labelled with the runs' numbers
    (1-based, as the report's table numbers them): nothing run-controlled is in the block. More
    than ``MAX_POINTS`` runs: the ``MAX_POINTS`` largest, still under their own numbers, and the
    title says so. "" when there is nothing to draw."""
    if not values:
        return ""
    points = list(enumerate(values, start=1))
    if len(points) > MAX_POINTS:
        points = sorted(sorted(points, key=lambda p: -p[1])[:MAX_POINTS])
        title = f"{title} (the {MAX_POINTS} largest of {len(values)})"
    top = max(v for _, v in points)
    labels = ", ".join(f'"{n}"' for n, _ in points)
    bars = ", ".join(f"{round(v, places)}" for _, v in points)
    return "\n".join(
        [
            "```mermaid",
            "xychart-beta",
            f'    title "{_plain(title)}"',
            f'    x-axis "Run" [{labels}]',
            f'    y-axis "{_plain(axis)}" 0 --> {_ceiling(top, places)}',
            f"    bar [{bars}]",
            "```",
        ]
    )


def pie_chart(title: str, slices: Sequence[tuple[str, int]]) -> str:
    """A fenced pie chart; a slice's label is kept only when it is a plain word (a stop reason),
    else it counts as ``other``. "" when there is nothing to draw."""
    counts: dict[str, int] = {}
    for label, count in slices:
        name = label if _WORD.match(label) else "other"
        counts[name] = counts.get(name, 0) + count
    if not counts:
        return ""
    lines = ["```mermaid", "pie showData", f"    title {_plain(title)}"]
    lines += [f'    "{name}" : {count}' for name, count in counts.items() if count > 0]
    return "\n".join([*lines, "```"])


_WORD = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


def _plain(text: str) -> str:
    """A title or axis label the harness wrote, kept to characters that cannot end the string."""
    return re.sub(r"[^A-Za-z0-9 ,.()$%/-]", "", text)


def _ceiling(top: float, places: int) -> float | int:
    bound = top * 1.1 if top > 0 else 1
    return round(bound, places) if places else max(1, round(bound))
