"""Counts and curves: histograms, activity per hour, lines and scatter plots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from core.plots.base import (
    ACCENT,
    HEIGHT,
    HOUR,
    HOUR_FORMAT,
    MIN_HOURS,
    TALL,
    Spec,
    finite,
    frame,
    nominal,
    quant,
)


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
    return frame(
        title,
        rows,
        HEIGHT,
        mark={"type": "bar", "color": ACCENT, "binSpacing": 1},
        encoding={
            "x": quant("from", x_title)
            | {"bin": binned, "scale": {"domain": [lo, hi]}, "axis": {"tickCount": 10}},
            "x2": {"field": "to"},
            "y": quant("count", y_title) | {"axis": {"tickMinStep": 1, "format": "d"}},
            "tooltip": [
                quant("from", "From", ".2f"),
                quant("to", "To", ".2f"),
                quant("count", y_title),
            ],
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
        return frame(title, [], HEIGHT)
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
    return frame(
        title,
        rows,
        HEIGHT,
        mark={"type": "bar", "orient": "vertical", "color": ACCENT, "stroke": "white"},
        encoding={
            "x": _hour_axis(hours),
            "x2": {"field": "end"},
            "y": quant("count", y_title) | {"axis": {"tickMinStep": 1, "format": "d"}},
            "tooltip": [nominal("label", "Hour (UTC)"), quant("count", y_title)],
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
    points = [(name, finite(x), finite(y)) for name, line in series.items() for x, y in line]
    drawn = [(name, x, y) for name, x, y in points if x is not None and y is not None]
    rows = [{"series": name, "x": x, "y": y} for name, x, y in drawn]
    x = quant("x", x_title) | {"scale": {"zero": False, "reverse": x_descending}}
    if drawn and all(v.is_integer() for _, v, _ in drawn):
        x["axis"] = {"tickMinStep": 1, "format": "d"}  # an order or a size: whole numbers
    color: dict[str, Any] = {"value": ACCENT}
    if len(series) > 1:
        color = nominal("series", series_title) | {"legend": {"orient": "bottom"}}
    return frame(
        title,
        rows,
        TALL if len(series) > 1 else HEIGHT,
        mark={"type": "line", "point": True},
        encoding={
            "x": x,
            "y": quant("y", y_title),
            "color": color,
            "tooltip": [
                nominal("series", series_title),
                quant("x", x_title),
                quant("y", y_title, y_format),
            ],
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
        {"x": finite(x), "y": finite(y), "label": label}
        for x, y, label in points
        if finite(x) is not None and finite(y) is not None
    ]
    encoding = {
        "x": quant("x", x_title) | {"scale": {"zero": False, "padding": 12}},
        "y": quant("y", y_title) | {"scale": {"zero": False, "padding": 12}},
    }
    tooltip = [
        nominal("label", label_title),
        quant("x", x_title, ".4~g"),
        quant("y", y_title, ".4~g"),
    ]
    return frame(
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
