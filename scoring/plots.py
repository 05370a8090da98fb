"""Small server-rendered SVG plots (no JavaScript, no external library)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

WIDTH = 640
LABEL_WIDTH = 210
ROW_HEIGHT = 22
MARGIN = 24


@dataclass(frozen=True)
class IntervalPoint:
    label: str
    score: float
    low: float | None
    high: float | None
    highlight: bool = False


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    span = hi - lo or 1.0
    raw = span / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 5, 10) if raw <= m * step)
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step) + 1)]


def interval_plot(points: list[IntervalPoint], *, title: str) -> SafeString:
    """Scores as dots with their 95% intervals as bars, one row per point, best at the top."""
    if not points:
        return mark_safe("")
    values = [v for p in points for v in (p.score, p.low, p.high) if v is not None]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    plot_width = WIDTH - LABEL_WIDTH - MARGIN

    def x(value: float) -> float:
        return round(LABEL_WIDTH + (value - lo) / (hi - lo) * plot_width, 1)

    height = MARGIN + ROW_HEIGHT * len(points) + MARGIN
    axis_y = height - MARGIN
    rows = format_html_join("", "{}", ((_row(p, k, x),) for k, p in enumerate(points)))
    ticks = format_html_join(
        "",
        '<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" class="grid-line"/>'
        '<text x="{0}" y="{3}" text-anchor="middle" class="tick">{4}</text>',
        ((x(t), MARGIN / 2, axis_y, axis_y + 16, f"{t:g}") for t in _ticks(lo, hi)),
    )
    return format_html(
        '<svg class="interval-plot" viewBox="0 0 {} {}" role="img" aria-label="{}">'
        "<title>{}</title>{}{}</svg>",
        WIDTH, height + 4, title, title, ticks, rows,
    )  # fmt: skip


def _row(point: IntervalPoint, k: int, x) -> SafeString:
    y = MARGIN + ROW_HEIGHT * k + ROW_HEIGHT / 2
    label = point.label if len(point.label) <= 30 else point.label[:29] + "…"
    bar = ""
    if point.low is not None and point.high is not None:
        bar = format_html(
            '<line x1="{}" x2="{}" y1="{}" y2="{}" class="ci"/>', x(point.low), x(point.high), y, y
        )
    interval = (
        f" [{point.low:.2f}, {point.high:.2f}]"
        if point.low is not None and point.high is not None
        else ""
    )
    return format_html(
        '<g class="{}"><text x="{}" y="{}" text-anchor="end" class="label">{}</text>{}'
        '<circle cx="{}" cy="{}" r="4"><title>{}: {}{}</title></circle></g>',
        "point baseline" if point.highlight else "point", LABEL_WIDTH - 8, y + 4, label, bar,
        x(point.score), y, point.label, f"{point.score:.2f}", interval,
    )  # fmt: skip
