"""Small server-rendered SVG charts: no JavaScript, no CDN, readable without colour.

Each function returns SVG markup as a string (numbers are formatted here, text is escaped), to be
inlined in a page with `|safe`. The chart scales to its container through its viewBox.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np

WIDTH, HEIGHT = 480, 160
LEFT, RIGHT, TOP, BOTTOM = 36, 8, 8, 22  # room for the axis labels


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _label(value: float) -> str:
    return f"{value:g}"


def _frame(title: str, body: list[str], width: int, height: int) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{''.join(body)}</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "middle") -> str:
    return (
        f'<text x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}" font-size="10" '
        f'fill="currentColor">{escape(text)}</text>'
    )


def _axes(width: int, height: int, y_max: float) -> list[str]:
    bottom = height - BOTTOM
    return [
        f'<line x1="{LEFT}" y1="{bottom}" x2="{width - RIGHT}" y2="{bottom}" '
        'stroke="currentColor" stroke-width="1"/>',
        _text(LEFT - 4, TOP + 8, _label(y_max), "end"),
        _text(LEFT - 4, bottom, "0", "end"),
    ]


def histogram_svg(
    values: Sequence[float],
    bins: int = 20,
    lo: float = -1.0,
    hi: float = 1.0,
    *,
    title: str = "Histogram",
    width: int = WIDTH,
    height: int = HEIGHT,
) -> str:
    """A histogram of `values` in `bins` equal bins over [lo, hi]; values outside are clipped
    into the end bins. Each bar carries a tooltip with its range and count."""
    if bins < 1 or not lo < hi:
        raise ValueError(f"Need bins ≥ 1 and lo < hi, got bins={bins}, lo={lo}, hi={hi}.")
    data = np.clip(np.asarray(values, dtype=float), lo, hi)
    counts, edges = np.histogram(data, bins=bins, range=(lo, hi))
    top = max(int(counts.max()) if counts.size else 0, 1)
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM
    bar_w = plot_w / bins
    body = _axes(width, height, top)
    for i, count in enumerate(counts):
        bar_h = plot_h * count / top
        x, y = LEFT + i * bar_w, TOP + plot_h - bar_h
        tip = f"{edges[i]:.2f} to {edges[i + 1]:.2f}: {count}"
        body.append(
            f'<rect x="{_num(x + 0.5)}" y="{_num(y)}" width="{_num(max(bar_w - 1, 0.5))}" '
            f'height="{_num(bar_h)}" fill="currentColor" opacity="0.7">'
            f"<title>{escape(tip)}</title></rect>"
        )
    bottom = height - BOTTOM
    body.append(_text(LEFT, bottom + 14, _label(lo), "start"))
    body.append(_text(width - RIGHT, bottom + 14, _label(hi), "end"))
    if lo < 0 < hi:
        body.append(_text(LEFT + plot_w * (0 - lo) / (hi - lo), bottom + 14, "0"))
    return _frame(title, body, width, height)


def line_svg(
    points: Sequence[tuple[float, float]],
    *,
    title: str = "Line chart",
    x_labels: tuple[str, str] | None = None,
    point_labels: Sequence[str] | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> str:
    """A line through (x, y) points (y from 0 up), with optional labels for both ends of the
    x axis and a tooltip per point."""
    body = []
    if points:
        xs = np.array([p[0] for p in points], dtype=float)
        ys = np.array([p[1] for p in points], dtype=float)
        top = max(float(ys.max()), 1.0)
        span = float(xs.max() - xs.min()) or 1.0
        plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM
        px = LEFT + (xs - xs.min()) / span * plot_w
        py = TOP + plot_h - ys / top * plot_h
        body = _axes(width, height, top)
        path = " ".join(f"{_num(x)},{_num(y)}" for x, y in zip(px, py, strict=True))
        body.append(
            f'<polyline points="{path}" fill="none" stroke="currentColor" stroke-width="2"/>'
        )
        labels = point_labels or [f"{_label(x)}: {_label(y)}" for x, y in points]
        for x, y, tip in zip(px, py, labels, strict=True):
            body.append(
                f'<circle cx="{_num(x)}" cy="{_num(y)}" r="2.5" fill="currentColor">'
                f"<title>{escape(tip)}</title></circle>"
            )
    else:
        body.append(_text(width / 2, height / 2, "No data yet"))
    if x_labels:
        body.append(_text(LEFT, height - 4, x_labels[0], "start"))
        body.append(_text(width - RIGHT, height - 4, x_labels[1], "end"))
    return _frame(title, body, width, height)
