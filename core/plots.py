"""Charts as Vega-Lite specs: plain dicts holding their data, axes and tooltips.

A page shows one with ``{% load charts %}{% chart spec caption="…" %}`` (``core/chart_tags.py``),
which embeds the spec as JSON and a table of its values (for readers without JavaScript), and
``static/js/charts.js`` draws it with the vendored vega-embed, whose menu downloads it as PNG or
SVG. Every builder here names its axes, writes values on them, and gives each mark a tooltip;
the tooltip's fields are also the columns of the values table (``chart_table``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

Spec = dict[str, Any]

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"  # names the format; never fetched
ACCENT, BASELINE = "#2457c5", "#d97800"  # studio.css's accent; the leaderboard's baselines
WIDTH = "container"  # as wide as the page gives, redrawn when that changes
HEIGHT, TALL, ROW_STEP = 160, 220, 22
HOUR_FORMAT = "%d %b %H:00"
HOUR, MIN_HOURS = timedelta(hours=1), 12


def _finite(value: float | None) -> float | None:
    """A number JSON can carry: NaN and infinities (an undefined coefficient) become null."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _spec(title: str, rows: list[dict[str, Any]], height: int, **body: Any) -> Spec:
    return {
        "$schema": SCHEMA,
        "title": title,
        "description": title,  # read out by screen readers, as the SVG's aria-label
        "width": WIDTH,
        "height": height,
        "autosize": {"type": "fit-x", "contains": "padding"},  # the height is the spec's
        "data": {"values": rows},
        **body,
    }


def _q(field: str, title: str, fmt: str | None = None) -> dict[str, Any]:
    """A quantitative field with its title (and number format, d3's)."""
    return {"field": field, "type": "quantitative", "title": title} | (
        {"format": fmt} if fmt else {}
    )


def _n(field: str, title: str) -> dict[str, Any]:
    return {"field": field, "type": "nominal", "title": title}


def histogram(
    values: Sequence[float],
    *,
    bins: int = 20,
    lo: float = -1.0,
    hi: float = 1.0,
    title: str,
    x_title: str,
    y_title: str = "Count",
) -> Spec:
    """Bars counting ``values`` in ``bins`` equal bins over [lo, hi], counted here (the page
    carries one row per bin, not every value); values outside are clipped into the end bins."""
    if bins < 1 or not lo < hi:
        raise ValueError(f"Need bins ≥ 1 and lo < hi, got bins={bins}, lo={lo}, hi={hi}.")
    data = np.clip(np.asarray(values, dtype=float), lo, hi)
    counts, edges = np.histogram(data, bins=bins, range=(lo, hi))
    rows = [
        {"from": round(float(a), 6), "to": round(float(b), 6), "count": int(n)}
        for a, b, n in zip(edges[:-1], edges[1:], counts, strict=True)
    ]
    # Binned here: Vega-Lite draws the bins as given, with round values on the axis.
    binned = {"binned": True, "step": (hi - lo) / bins}
    return _spec(
        title,
        rows,
        HEIGHT,
        mark={"type": "bar", "color": ACCENT, "binSpacing": 1},
        encoding={
            "x": _q("from", x_title)
            | {"bin": binned, "scale": {"domain": [lo, hi]}, "axis": {"tickCount": 10}},
            "x2": {"field": "to"},
            "y": _q("count", y_title) | {"axis": {"tickMinStep": 1, "format": "d"}},
            "tooltip": [_q("from", "From", ".2f"), _q("to", "To", ".2f"), _q("count", y_title)],
        },
    )


def _ms(moment: datetime) -> int:
    """A moment as Vega reads a timestamp: milliseconds since the epoch."""
    return round(moment.timestamp() * 1000)


def _datetime(moment: datetime) -> dict[str, int | bool]:
    """A UTC moment as a Vega-Lite DateTime (month 1 to 12)."""
    return {
        "year": moment.year,
        "month": moment.month,
        "date": moment.day,
        "hours": moment.hour,
        "utc": True,
    }


def _hour_axis(hours: Sequence[datetime]) -> dict[str, Any]:
    """The x of bars for these consecutive clock hours (UTC): a label every 1, 2, 3, 6, 12 or
    24 hours, about 8 in all, and the days in the axis title."""
    step = next(k for k in (1, 2, 3, 6, 12, 24) if len(hours) / k <= 8)
    axis = {
        # DateTime objects, not timestamps: Vega's CSP-safe interpreter misreads datetime(ms).
        "values": [_datetime(h) for h in hours if h.hour % step == 0],
        "format": "%H:00",
        "labelAngle": 0,
        "labelOverlap": True,
    }
    days = f"{hours[0]:%d %b}", f"{hours[-1]:%d %b}"
    title = f"Hour (UTC), {days[0]}" + (f" to {days[1]}" if days[1] != days[0] else "")
    return {
        "field": "hour",
        "type": "temporal",
        "title": title,
        "axis": axis,
        "scale": {"type": "utc"},
    }


def hourly_counts(
    counts: Sequence[tuple[datetime, int]],
    *,
    title: str,
    y_title: str = "Count",
    min_hours: int = MIN_HOURS,
) -> Spec:
    """A bar per clock hour (times in UTC), e.g. the answers a campaign got each hour; hours
    missing in between count 0. At least ``min_hours`` are drawn (ending with the last), so a
    first hour of work is one bar among its neighbours rather than a block filling the chart."""
    given = {hour.astimezone(UTC): int(n) for hour, n in counts}
    if not given:
        return _spec(title, [], HEIGHT)
    last = max(given)
    first = min(min(given), last - (min_hours - 1) * HOUR)
    hours = [first + k * HOUR for k in range(int((last - first) / HOUR) + 1)]
    rows = [
        {
            "hour": _ms(h),
            "end": _ms(h + HOUR),
            "label": f"{h:{HOUR_FORMAT}}",
            "count": given.get(h, 0),
        }
        for h in hours
    ]
    return _spec(
        title,
        rows,
        HEIGHT,
        mark={"type": "bar", "orient": "vertical", "color": ACCENT, "stroke": "white"},
        encoding={
            "x": _hour_axis(hours),
            "x2": {"field": "end"},
            "y": _q("count", y_title) | {"axis": {"tickMinStep": 1, "format": "d"}},
            "tooltip": [_n("label", "Hour (UTC)"), _q("count", y_title)],
        },
    )


def lines(
    series: Mapping[str, Sequence[tuple[float, float | None]]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    series_title: str = "Series",
    x_descending: bool = False,
    y_format: str = ".3f",
) -> Spec:
    """A line with its points per series (a legend when there are several): ``{name: [(x, y),
    …]}``. A y of None or NaN (e.g. an undefined coefficient) has no point. ``x_descending``
    draws x decreasing to the right (the paper's θ sweeps)."""
    points = [(name, _finite(x), _finite(y)) for name, line in series.items() for x, y in line]
    drawn = [(name, x, y) for name, x, y in points if x is not None and y is not None]
    rows = [{"series": name, "x": x, "y": y} for name, x, y in drawn]
    x = _q("x", x_title) | {"scale": {"zero": False, "reverse": x_descending}}
    if drawn and all(v.is_integer() for _, v, _ in drawn):
        x["axis"] = {"tickMinStep": 1, "format": "d"}  # an order or a size: whole numbers
    color: dict[str, Any] = {"value": ACCENT}
    if len(series) > 1:
        color = _n("series", series_title) | {"legend": {"orient": "bottom"}}
    return _spec(
        title,
        rows,
        TALL if len(series) > 1 else HEIGHT,
        mark={"type": "line", "point": True},
        encoding={
            "x": x,
            "y": _q("y", y_title),
            "color": color,
            "tooltip": [_n("series", series_title), _q("x", x_title), _q("y", y_title, y_format)],
        },
    )


def scatter(
    points: Sequence[tuple[float, float, str]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    label_title: str = "System",
) -> Spec:
    """One labelled dot per (x, y, label), e.g. a system's metric score against its human mean."""
    rows = [
        {"x": _finite(x), "y": _finite(y), "label": label}
        for x, y, label in points
        if _finite(x) is not None and _finite(y) is not None
    ]
    encoding = {
        "x": _q("x", x_title) | {"scale": {"zero": False, "padding": 12}},
        "y": _q("y", y_title) | {"scale": {"zero": False, "padding": 12}},
    }
    tooltip = [_n("label", label_title), _q("x", x_title, ".4~g"), _q("y", y_title, ".4~g")]
    return _spec(
        title,
        rows,
        TALL,
        encoding=encoding,
        layer=[
            {
                "mark": {"type": "point", "filled": True, "size": 50, "color": ACCENT},
                "encoding": {"tooltip": tooltip},
            },
            {
                "mark": {"type": "text", "align": "left", "dx": 6, "dy": -6, "fontSize": 10},
                "encoding": {"text": {"field": "label"}},
            },
        ],
    )


@dataclass(frozen=True)
class IntervalPoint:
    label: str
    score: float
    low: float | None
    high: float | None
    highlight: bool = False


def _unique(labels: Sequence[str]) -> list[str]:
    """Labels as rows of one axis: a repeated one gets " (2)", " (3)"… so no two rows merge."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def intervals(
    points: Sequence[IntervalPoint],
    *,
    title: str,
    x_title: str,
    highlight_title: str = "baseline",
) -> Spec:
    """Scores as dots with their 95% intervals as bars, one row per point in the given order
    (best first); highlighted points (e.g. baselines) in their own colour, named in a legend."""
    rows = [
        {
            "label": label,
            "score": _finite(p.score),
            "low": _finite(p.low),
            "high": _finite(p.high),
            "kind": highlight_title if p.highlight else "submission",
        }
        for p, label in zip(points, _unique([p.label for p in points]), strict=True)
    ]
    y = _n("label", "") | {"sort": None, "title": None, "axis": {"labelLimit": 220}}
    # The legend names only the kinds drawn (a board of baselines alone has no "submission").
    drawn = {row["kind"] for row in rows}
    kinds = [(k, c) for k, c in (("submission", ACCENT), (highlight_title, BASELINE)) if k in drawn]
    color = {
        "field": "kind",
        "type": "nominal",
        "title": None,
        "scale": {"domain": [k for k, _ in kinds], "range": [c for _, c in kinds]},
        "legend": {"orient": "bottom"},
    }
    tooltip = [
        _n("label", "Entry"),
        _q("score", x_title, ".2f"),
        _q("low", "95% interval, low", ".2f"),
        _q("high", "95% interval, high", ".2f"),
    ]
    return _spec(
        title,
        rows,
        ROW_STEP * max(len(rows), 1),  # a number, not {"step": …}, so the width can fit
        encoding={"y": y, "color": color},
        layer=[
            {
                "mark": {"type": "rule", "strokeWidth": 2},
                "encoding": {
                    "x": _q("low", x_title) | {"scale": {"zero": False}},
                    "x2": {"field": "high"},
                },
            },
            {
                "mark": {"type": "point", "filled": True, "size": 60, "opacity": 1},
                "encoding": {"x": _q("score", x_title), "tooltip": tooltip},
            },
        ],
    )


def _tooltip(spec: Spec) -> list[dict[str, Any]]:
    for part in [spec, *spec.get("layer", [])]:
        if "tooltip" in part.get("encoding", {}):
            return part["encoding"]["tooltip"]
    return []


def _cell(value: Any, fmt: str | None) -> str:
    """A value as its tooltip shows it (the d3 formats the builders use: .Nf, .N~g, d)."""
    if value is None:
        return "—"
    if isinstance(value, str) or not fmt:
        return str(value)
    if fmt == "d":
        return f"{value:.0f}"
    digits, kind = fmt.lstrip(".").replace("~", "")[:-1], fmt[-1]
    return f"{value:.{digits}{kind}}"


def chart_table(spec: Spec) -> tuple[list[str], list[list[str]]]:
    """The values a chart draws as a table: a column per tooltip field, a row per datum."""
    fields = _tooltip(spec)
    rows = [
        [_cell(row.get(f["field"]), f.get("format")) for f in fields]
        for row in spec["data"]["values"]
    ]
    return [f["title"] for f in fields], rows
