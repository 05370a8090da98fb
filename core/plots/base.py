"""What every chart shares: the spec's frame, field encodings, and the table of its values."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

Spec = dict[str, Any]

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"  # names the format; never fetched
ACCENT, BASELINE = "#2457c5", "#d97800"  # studio.css's accent; the leaderboard's baselines
WIDTH = "container"  # as wide as the page gives, redrawn when that changes
HEIGHT, TALL, ROW_STEP = 160, 220, 22
HOUR_FORMAT = "%d %b %H:00"
HOUR, MIN_HOURS = timedelta(hours=1), 12


def finite(value: float | None) -> float | None:
    """A number JSON can carry: NaN and infinities (an undefined coefficient) become null."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def frame(title: str, rows: list[dict[str, Any]], height: int, **body: Any) -> Spec:
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


def quant(field: str, title: str, fmt: str | None = None) -> dict[str, Any]:
    """A quantitative field with its title (and number format, d3's)."""
    return {"field": field, "type": "quantitative", "title": title} | (
        {"format": fmt} if fmt else {}
    )


def nominal(field: str, title: str) -> dict[str, Any]:
    return {"field": field, "type": "nominal", "title": title}


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
