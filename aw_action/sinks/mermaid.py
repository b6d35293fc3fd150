"""A mermaid ``xychart-beta`` of cumulative effective tokens per turn against the budget.

GitHub renders ``mermaid`` fenced blocks in step summaries. Series hold only numbers and the title
and axis labels are fixed strings, so nothing run-controlled can break out of the block.
"""

from __future__ import annotations

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
