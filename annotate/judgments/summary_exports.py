"""A judgment set's summary as a CSV table, as charts and as the API's answer (no database)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from annotate.judgments.summary_math import Cell, Summary
from core.plots.base import Spec
from core.plots.ranks import IntervalPoint, intervals
from core.tabular import csv_text

if TYPE_CHECKING:  # the payload reads a set's fields; this module needs no database
    from annotate.judgments.models import JudgmentSet

CSV_HEADER = ["system", "criterion", "mean", "low", "high", "items", "judgments"]


def summary_csv(summary: Summary) -> str:
    """One line per system and criterion, systems best first, criteria in the set's order;
    `low`/`high` the 95% bootstrap interval of the mean."""
    rows = [
        [
            s.system,
            c,
            f"{cell.mean:.4f}",
            f"{cell.low:.4f}",
            f"{cell.high:.4f}",
            cell.items,
            cell.judgments,
        ]
        for s in summary.systems
        for c in summary.criteria
        if (cell := s.cells.get(c)) is not None
    ]
    return csv_text(CSV_HEADER, rows)


def summary_charts(summary: Summary) -> list[Spec]:
    """Per criterion, each system's mean with its 95% interval, best first on that criterion."""
    charts = []
    for criterion in summary.criteria:
        cells = [(s.system, s.cells[criterion]) for s in summary.systems if criterion in s.cells]
        cells.sort(key=lambda pair: -pair[1].mean)
        points = [IntervalPoint(name, c.mean, c.low, c.high) for name, c in cells]
        x_title = f"{criterion}: mean of item means"
        charts.append(intervals(points, title=criterion, x_title=x_title, point_title="system"))
    return charts


# What a report without counts says (a set made in the admin, or before the report had a
# field): nothing counted, so the answer keeps its documented shape.
EMPTY_REPORT = {"judgments": 0, "rows": 0, "items_created": 0, "systems": [], "warnings": 0}
EMPTY_REPORT |= {"errors": 0, "problems": []}

NO_INDIVIDUAL = (
    "individual judgments not available: the set has one (aggregated) score per system × item"
)


def _scores(cells: dict[str, Cell], criteria: list[str]) -> list[dict[str, object]]:
    return [{"criterion": c, **asdict(cells[c])} for c in criteria if c in cells]


def summary_payload(judgment_set: JudgmentSet, summary: Summary) -> dict[str, object]:
    """The API's answer (`JudgmentSetSummarySerializer`) for a set and its summary."""
    return {
        "judgment_set": judgment_set.pk,
        "name": judgment_set.name,
        "dataset": judgment_set.dataset.slug,
        "split": judgment_set.split,
        "criteria": summary.criteria,
        "items": summary.items,
        "judgments": summary.judgments,
        "interval": {"level": 0.95, "draws": summary.draws, "seed": summary.seed},
        "systems": [
            {"system": s.system, "scores": _scores(s.cells, summary.criteria)}
            for s in summary.systems
        ],
        "agreement": {
            "available": summary.individual,
            "note": "" if summary.individual else NO_INDIVIDUAL,
            "criteria": [asdict(a) for a in summary.agreement],
        },
        "report": {**EMPTY_REPORT, **(judgment_set.report or {})},
    }
