"""The last hand-written SVG charts, kept only while the study's pages still draw with them.

Switching the study (scoring/study/selectors.py and its detail.html), then deleting this module,
its re-export in core/plots.py, tests/core/test_plots_svg.py and ``svg.chart`` in studio.css:

- ``study_plots``: one chart per sweep, a line per metric, θ decreasing to the right::

      "chart": lines(series, title=SWEEP_TITLES.get(sweep, sweep),
                     x_title=SWEEP_AXES.get(sweep, sweep), y_title="Spearman's ρ",
                     series_title="Metric", x_descending=sweep == "theta")

  for each ``sweep, series`` of ``study.result["sweeps"]`` as stored (``{metric: [[x, ρ or
  null], …]}``: ``lines`` leaves out undefined points), with ``SWEEP_AXES = {"theta":
  "reference-weight threshold θ", "unit_size": "unit size M", "order": "n-gram order"}``.
- ``study_system_levels``: per correlation ``c``, ``scatter([(row["human"].get("value"),
  row["metrics"].get(c["key"]), row["system"]) for row in level["systems"]], title=…,
  x_title=f"human {criterion} (mean)", y_title=c["display"])`` (a system without both values
  is left out by ``scatter``).
- detail.html: ``{% load charts %}``, then ``{% chart chart %}`` for each of ``level.plots`` and
  ``{% chart plot.chart %}`` for each of ``plots`` (the tag draws the figure and its table).
- Tests: the page has ``data-chart`` boxes (3 sweeps + 1 scatter per metric), no ``<svg``
  (tests/scoring/test_study_pages.py; the demo tour's study stop in
  tests/annotate/test_demo_fixture.py looks for ``<svg`` too); in the browser
  ``#study-plots [data-chart] svg.marks`` appears once per sweep (tests/browser/test_study_flow.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

import numpy as np
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 480, 160
LEFT, RIGHT, TOP, BOTTOM = 36, 8, 8, 22  # room for the axis labels
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
