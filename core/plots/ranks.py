"""Rankings: scores with their intervals, and how each entry's rank is distributed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.plots.base import ACCENT, BASELINE, ROW_STEP, Spec, finite, frame, nominal, quant


@dataclass(frozen=True)
class IntervalPoint:
    label: str
    score: float
    low: float | None
    high: float | None
    highlight: bool = False
    # A second, wider interval drawn behind the first (the leaderboard's with rater uncertainty).
    wide_low: float | None = None
    wide_high: float | None = None


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
    wide_title: str = "",
    point_title: str = "submission",
) -> Spec:
    """Scores as dots with their 95% intervals as bars, one row per point in the given order
    (best first); highlighted points (e.g. baselines) in their own colour, named in a legend.
    With ``wide_title``, each point's wide interval is drawn behind as a pale thick bar;
    ``point_title`` names the other points in the legend (a board's submissions by default)."""
    rows = [
        {
            "label": label,
            "score": finite(p.score),
            "low": finite(p.low),
            "high": finite(p.high),
            "kind": highlight_title if p.highlight else point_title,
            "wide_low": finite(p.wide_low),
            "wide_high": finite(p.wide_high),
        }
        for p, label in zip(points, _unique([p.label for p in points]), strict=True)
    ]
    y = nominal("label", "") | {"sort": None, "title": None, "axis": {"labelLimit": 220}}
    # The legend names only the kinds drawn (a board of baselines alone has no "submission").
    drawn = {row["kind"] for row in rows}
    kinds = [(k, c) for k, c in ((point_title, ACCENT), (highlight_title, BASELINE)) if k in drawn]
    color = {
        "field": "kind",
        "type": "nominal",
        "title": None,
        "scale": {"domain": [k for k, _ in kinds], "range": [c for _, c in kinds]},
        "legend": {"orient": "bottom"},
    }
    tooltip = [
        nominal("label", "Entry"),
        quant("score", x_title, ".2f"),
        quant("low", "95% interval, low", ".2f"),
        quant("high", "95% interval, high", ".2f"),
    ]
    wide: list[dict[str, Any]] = []
    if wide_title:
        tooltip += [
            quant("wide_low", f"{wide_title}, low", ".2f"),
            quant("wide_high", f"{wide_title}, high", ".2f"),
        ]
        wide = [
            {
                "mark": {"type": "rule", "strokeWidth": 8, "opacity": 0.25},
                "encoding": {
                    "x": quant("wide_low", x_title) | {"scale": {"zero": False}},
                    "x2": {"field": "wide_high"},
                    "tooltip": tooltip,
                },
            }
        ]
    return frame(
        title,
        rows,
        ROW_STEP * max(len(rows), 1),  # a number, not {"step": …}, so the width can fit
        encoding={"y": y, "color": color},
        layer=[
            *wide,
            {
                "mark": {"type": "rule", "strokeWidth": 2},
                "encoding": {
                    "x": quant("low", x_title) | {"scale": {"zero": False}},
                    "x2": {"field": "high"},
                },
            },
            {
                "mark": {"type": "point", "filled": True, "size": 60, "opacity": 1},
                "encoding": {"x": quant("score", x_title), "tooltip": tooltip},
            },
        ],
    )


def rank_distribution(
    labels: Sequence[str], probabilities: Sequence[Sequence[float]], *, title: str
) -> Spec:
    """Each entry's rank over the bootstrap as a grid: a row per entry (in the given order), a
    column per rank, the cell's shade and label its probability (blank below 0.5%)."""
    names = _unique(list(labels))
    rows = [
        {
            "label": name,
            "rank": rank,
            "probability": float(p),
            "text": f"{p:.0%}" if p >= 0.005 else "",
        }
        for name, row in zip(names, probabilities, strict=True)
        for rank, p in enumerate(row, start=1)
    ]
    x = nominal("rank", "Rank") | {"type": "ordinal", "axis": {"labelAngle": 0}}
    y = nominal("label", "") | {"sort": names, "title": None, "axis": {"labelLimit": 220}}
    tooltip = [nominal("label", "Entry"), quant("rank", "Rank"), quant("probability", "P", ".1%")]
    return frame(
        title,
        rows,
        ROW_STEP * max(len(names), 1),
        encoding={"x": x, "y": y},
        layer=[
            {
                "mark": {"type": "rect"},
                "encoding": {
                    "color": quant("probability", "Probability")
                    # White where a rank never happens, the accent's dark shade where always.
                    | {
                        "scale": {"domain": [0, 1], "range": ["#ffffff", "#0b2e6e"]},
                        "legend": None,
                    },
                    "tooltip": tooltip,
                },
            },
            {
                "mark": {"type": "text", "fontSize": 11},
                "encoding": {
                    "text": {"field": "text"},
                    "color": {
                        "condition": {"test": "datum.probability > 0.6", "value": "white"},
                        "value": "black",
                    },
                },
            },
        ],
    )
