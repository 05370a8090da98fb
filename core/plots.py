"""Small server-rendered SVG charts: no JavaScript, no CDN, readable without colour.

Each function returns SVG markup marked safe for templates (numbers are formatted here, every
text is escaped here). A chart scales to its container through its viewBox. Axes carry values:
ticks at round numbers (1, 2 or 5 times a power of ten), so a reader can tell what a point is
worth without hovering over it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 480, 160
LEFT, RIGHT, TOP, BOTTOM = 36, 8, 8, 22  # room for the axis labels
# The interval plot: a label column on the left, one row per point.
INTERVAL_WIDTH, LABEL_WIDTH, ROW_HEIGHT, MARGIN = 640, 210, 22, 24
FONT = 'font-size="10" fill="currentColor"'


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _label(value: float) -> str:
    return f"{value + 0.0:g}"  # + 0.0: a tick at -0.0 reads "0"


def ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` round values in [lo, hi], a step of 1, 2 or 5 times a power of ten."""
    span = hi - lo or 1.0
    raw = span / count
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 5, 10) if raw <= m * step)
    first = math.ceil(lo / step) * step
    # Rounded so that float steps print as the round numbers they stand for.
    return [round(first + k * step, 10) for k in range(int((hi - first) / step + 1e-9) + 1)]


def _frame(title: str, body: list[str], width: int, height: int, css: str = "chart") -> SafeString:
    return mark_safe(  # noqa: S308 (every text in `body` and `title` is escaped)
        f'<svg class="{css}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{''.join(body)}</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "middle", attrs: str = FONT) -> str:
    return f'<text x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}" {attrs}>{escape(text)}</text>'


def _y_axis(
    width: int, height: int, top: float, values: Sequence[float], low: float = 0.0
) -> list[str]:
    """The x axis line, and a label and a faint grid line at each of ``values`` (low to top)."""
    bottom, plot_h = height - BOTTOM, height - TOP - BOTTOM
    out = [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{width - RIGHT}" y2="{bottom}" '
        'stroke="currentColor" stroke-width="1"/>'
    ]
    for value in values:
        y = bottom - plot_h * (value - low) / ((top - low) or 1.0)
        if value != low:
            out.append(
                f'<line x1="{LEFT}" y1="{_num(y)}" x2="{width - RIGHT}" y2="{_num(y)}" '
                'stroke="currentColor" stroke-opacity="0.15"/>'
            )
        out.append(_text(LEFT - 4, y + 3, _label(value), "end"))
    return out


def _x_axis(width: int, height: int, labels: Sequence[tuple[float, str]]) -> list[str]:
    """A tick mark and a label under the axis at each (x position, text); empty texts skipped."""
    bottom, out = height - BOTTOM, []
    for x, text in labels:
        if not text:
            continue
        # Labels at the ends grow inwards, so none is cut off by the viewBox.
        anchor = "start" if x <= LEFT + 0.5 else "end" if x >= width - RIGHT - 0.5 else "middle"
        out.append(
            f'<line x1="{_num(x)}" y1="{bottom}" x2="{_num(x)}" y2="{bottom + 3}" '
            'stroke="currentColor" stroke-width="1"/>'
        )
        out.append(_text(x, bottom + 14, text, anchor))
    return out


def histogram_svg(
    values: Sequence[float],
    bins: int = 20,
    lo: float = -1.0,
    hi: float = 1.0,
    *,
    title: str = "Histogram",
    width: int = WIDTH,
    height: int = HEIGHT,
) -> SafeString:
    """A histogram of `values` in `bins` equal bins over [lo, hi]; values outside are clipped
    into the end bins. Each bar carries a tooltip with its range and count."""
    if bins < 1 or not lo < hi:
        raise ValueError(f"Need bins ≥ 1 and lo < hi, got bins={bins}, lo={lo}, hi={hi}.")
    data = np.clip(np.asarray(values, dtype=float), lo, hi)
    counts, edges = np.histogram(data, bins=bins, range=(lo, hi))
    top = max(int(counts.max()) if counts.size else 0, 1)
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM
    bar_w = plot_w / bins
    body = _y_axis(width, height, top, (0, top))
    for i, count in enumerate(counts):
        bar_h = plot_h * count / top
        x, y = LEFT + i * bar_w, TOP + plot_h - bar_h
        tip = f"{edges[i]:.2f} to {edges[i + 1]:.2f}: {count}"
        body.append(
            f'<rect x="{_num(x + 0.5)}" y="{_num(y)}" width="{_num(max(bar_w - 1, 0.5))}" '
            f'height="{_num(bar_h)}" fill="currentColor" opacity="0.7">'
            f"<title>{escape(tip)}</title></rect>"
        )
    ends = [lo, 0.0, hi] if lo < 0 < hi else [lo, hi]
    at = [(LEFT + plot_w * (v - lo) / (hi - lo), _label(v)) for v in ends]
    body += _x_axis(width, height, at)
    return _frame(title, body, width, height)


def line_svg(
    points: Sequence[tuple[float, float]],
    *,
    title: str = "Line chart",
    x_format: Callable[[float], str] = _label,
    x_descending: bool = False,
    point_labels: Sequence[str] | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> SafeString:
    """A line through (x, y) points (y from 0 up) with a tooltip per point and values on both
    axes: round ticks, the x ones written by ``x_format`` ("" leaves a tick unlabelled, e.g. a
    fractional index). ``x_descending`` draws x decreasing to the right."""
    if not points:
        return _frame(title, [_text(width / 2, height / 2, "No data yet")], width, height)
    xs = np.array([p[0] for p in points], dtype=float)
    ys = np.array([p[1] for p in points], dtype=float)
    top = max(float(ys.max()), 1.0)
    x_lo, span = float(xs.min()), float(xs.max() - xs.min()) or 1.0
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM

    def px(x):  # a number or an array of them
        share = (x - x_lo) / span
        return LEFT + (1 - share if x_descending else share) * plot_w

    py = TOP + plot_h - ys / top * plot_h
    body = _y_axis(width, height, top, ticks(0.0, top))
    body += _x_axis(width, height, [(px(t), x_format(t)) for t in ticks(x_lo, x_lo + span)])
    path = " ".join(f"{_num(x)},{_num(y)}" for x, y in zip(px(xs), py, strict=True))
    body.append(f'<polyline points="{path}" fill="none" stroke="currentColor" stroke-width="2"/>')
    labels = point_labels or [f"{_label(x)}: {_label(y)}" for x, y in points]
    for x, y, tip in zip(px(xs), py, labels, strict=True):
        body.append(
            f'<circle cx="{_num(x)}" cy="{_num(y)}" r="2.5" fill="currentColor">'
            f"<title>{escape(tip)}</title></circle>"
        )
    return _frame(title, body, width, height)


def _padded(values: np.ndarray) -> tuple[float, float]:
    """A range a little wider than the values', so no point sits on the frame."""
    lo, hi = float(values.min()), float(values.max())
    pad = (hi - lo) * 0.08 or max(abs(hi) * 0.1, 0.5)
    return lo - pad, hi + pad


def scatter_svg(
    points: Sequence[tuple[float, float, str]],
    *,
    title: str = "Scatter plot",
    x_title: str = "",
    y_title: str = "",
    width: int = WIDTH,
    height: int = 220,
) -> SafeString:
    """One labelled dot per (x, y, label) — e.g. a system's human mean against its metric
    score — with values on both axes and the axes' names; each dot's tooltip gives its values."""
    if not points:
        return _frame(title, [_text(width / 2, height / 2, "No data yet")], width, height)
    xs = np.array([p[0] for p in points], dtype=float)
    ys = np.array([p[1] for p in points], dtype=float)
    (x_lo, x_hi), (y_lo, y_hi) = _padded(xs), _padded(ys)
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM - 12

    def px(x: float) -> float:
        return LEFT + (x - x_lo) / (x_hi - x_lo) * plot_w

    def py(y: float) -> float:
        return TOP + plot_h - (y - y_lo) / (y_hi - y_lo) * plot_h

    body = _y_axis(width, height - 12, y_hi, ticks(y_lo, y_hi), low=y_lo)
    body += _x_axis(width, height - 12, [(px(t), _label(t)) for t in ticks(x_lo, x_hi)])
    body.append(_text(width / 2, height - 2, x_title))
    body.append(_text(LEFT + 2, TOP + 8, y_title, "start"))
    for x, y, label in points:
        tip = f"{label}: {x:.4g}, {y:.4g}"
        body.append(
            f'<circle cx="{_num(px(x))}" cy="{_num(py(y))}" r="3.5" fill="currentColor">'
            f"<title>{escape(tip)}</title></circle>"
        )
        body.append(
            _text(px(x) + 5, py(y) - 4, label, "start", 'font-size="9" fill="currentColor"')
        )
    return _frame(title, body, width, height)


@dataclass(frozen=True)
class IntervalPoint:
    label: str
    score: float
    low: float | None
    high: float | None
    highlight: bool = False


def interval_plot(points: Sequence[IntervalPoint], *, title: str) -> SafeString:
    """Scores as dots with their 95% intervals as bars, one row per point, best at the top;
    the look comes from the page's CSS (classes ``interval-plot``, ``tick``, ``ci``, …)."""
    if not points:
        return mark_safe("")
    values = [v for p in points for v in (p.score, p.low, p.high) if v is not None]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    plot_width = INTERVAL_WIDTH - LABEL_WIDTH - MARGIN

    def x(value: float) -> float:
        return LABEL_WIDTH + (value - lo) / (hi - lo) * plot_width

    height = MARGIN + ROW_HEIGHT * len(points) + MARGIN
    axis_y = height - MARGIN
    body = []
    for t in ticks(lo, hi):
        body.append(
            f'<line x1="{_num(x(t))}" x2="{_num(x(t))}" y1="{_num(MARGIN / 2)}" y2="{axis_y}" '
            'class="grid-line"/>'
        )
        body.append(_text(x(t), axis_y + 16, _label(t), attrs='class="tick"'))
    body += [_interval_row(p, k, x) for k, p in enumerate(points)]
    return _frame(title, body, INTERVAL_WIDTH, height + 4, css="interval-plot")


def _interval_row(point: IntervalPoint, k: int, x: Callable[[float], float]) -> str:
    y = MARGIN + ROW_HEIGHT * k + ROW_HEIGHT / 2
    label = point.label if len(point.label) <= 30 else point.label[:29] + "…"
    bar = interval = ""
    if point.low is not None and point.high is not None:
        bar = (
            f'<line x1="{_num(x(point.low))}" x2="{_num(x(point.high))}" y1="{_num(y)}" '
            f'y2="{_num(y)}" class="ci"/>'
        )
        interval = f" [{point.low:.2f}, {point.high:.2f}]"
    tip = f"{point.label}: {point.score:.2f}{interval}"
    name = _text(LABEL_WIDTH - 8, y + 4, label, "end", 'class="label"')
    return (
        f'<g class="{"point baseline" if point.highlight else "point"}">{name}{bar}'
        f'<circle cx="{_num(x(point.score))}" cy="{_num(y)}" r="4"><title>{escape(tip)}</title>'
        "</circle></g>"
    )
