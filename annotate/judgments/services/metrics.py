"""Upload of per-response scores of metrics computed elsewhere to a judgment set (one
`ExternalMetric` per metric column, an `ExternalScore` per system × item), so that a study on
the set meta-evaluates them beside the built-in metrics.

A bad cell refuses the whole file (`metric_files`); responses the set did not judge — a
system or an item without a judgment in it — are skipped with a warning naming the first line,
as the judgments import warns of judged items it has no context for: the scores are not wrong,
but no study of the set could use them. Written in one transaction: all metrics or none.

The reading (`metric_scores_read`) and the writing (`external_metrics_store`) serve every holder
of uploaded metrics: a leaderboard's owner uploads through the same two
(`scoring.leaderboards.services.external_metrics`), which only matches the rows differently.
"""

from __future__ import annotations

from typing import NoReturn

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from annotate.judgments.columns import MappedColumn
from annotate.judgments.metric_files import MetricFile, MetricRow, metric_file_parse
from annotate.judgments.models import EvalSystem, ExternalMetric, ExternalScore, JudgmentSet
from core.bulk import analyze_after_commit
from core.lines import LineProblem, problems_counted

MAX_LISTED = 200


class MetricScoresRejected(ValidationError):
    """Nothing was written: `problems` says why, by line and column."""

    def __init__(self, message: str, problems: list[LineProblem]):
        super().__init__(message)
        self.problems = problems


def metric_scores_refuse(problems: list[LineProblem]) -> NoReturn:
    problems = problems[:MAX_LISTED]  # a file of 100,000 unknown items: the first lines say it
    listed = "; ".join(str(p) for p in problems[:10])
    raise MetricScoresRejected(f"No metric scores were imported: {listed}", problems)


def _judged(judgment_set: JudgmentSet) -> tuple[dict[str, EvalSystem], set[str]]:
    """The set's judged systems by name and its judged items."""
    pairs = judgment_set.judgments.values_list("system_id", "external_id").distinct()
    system_ids, items = set(), set()
    for system_id, item in pairs.iterator():
        system_ids.add(system_id)
        items.add(item)
    systems = EvalSystem.objects.filter(pk__in=system_ids)
    return {s.name: s for s in systems}, items


def _usable(
    parsed: MetricFile, systems: dict[str, EvalSystem], items: set[str]
) -> tuple[list[MetricRow], list]:
    """The rows of judged responses, and a warning per unjudged system or item (first line)."""
    first: dict[tuple[str, str], int] = {}
    kept = []
    for row in parsed.rows:
        if row.system not in systems:
            first.setdefault(("system", row.system), row.line)
        elif row.item not in items:
            first.setdefault(("item", row.item), row.line)
        else:
            kept.append(row)
    warnings = [
        LineProblem(line, f"{what} {name!r} is not judged in the set: its scores are skipped",
                    what, parsed.name, "warning", f"{what}s not judged in the set", name)
        for (what, name), line in first.items()
    ]  # fmt: skip
    return kept, warnings


def _refuse_taken_names(parsed: MetricFile, judgment_set: JudgmentSet) -> None:
    taken = set(
        judgment_set.external_metrics.filter(name__in=parsed.metrics).values_list("name", flat=True)
    )
    if taken:
        metric_scores_refuse(
            [
                LineProblem(1, "the set has a metric of this name already: delete it first", n)
                for n in sorted(taken)
            ]
        )


def metric_scores_read(
    *,
    name: str,
    data: bytes,
    metrics: list[str] | None = None,
    lower_is_better: list[str] | None = None,
    columns: list[MappedColumn] | None = None,
) -> tuple[MetricFile, set[str]]:
    """The file's metrics and rows, and those of its metrics where lower is better; refused
    (`MetricScoresRejected`) when a cell, a column or `lower_is_better` is wrong. Shared by
    every holder of uploaded metrics (a judgment set here, a leaderboard in scoring)."""
    parsed = metric_file_parse(name, data, metrics=metrics, columns=columns)
    if parsed.errors:
        metric_scores_refuse(parsed.errors)
    lower = {m.strip() for m in lower_is_better or [] if m.strip()}
    unknown = sorted(lower - set(parsed.metrics))
    if unknown:
        metric_scores_refuse(
            [LineProblem(1, "lower_is_better names no metric column", n) for n in unknown]
        )
    return parsed, lower


def external_metrics_store(
    *,
    parsed: MetricFile,
    rows: list[MetricRow],
    systems: dict[str, EvalSystem],
    lower: set[str],
    description: str,
    warnings: list[LineProblem],
    judgment_set: JudgmentSet | None = None,
) -> list[ExternalMetric]:
    """One `ExternalMetric` per metric of the file and its scores of `rows` (each row's system
    looked up by its cell in `systems`). The caller holds the transaction and has checked
    the rows against what it holds."""
    report = _report(parsed, rows, warnings)
    created = [
        ExternalMetric.objects.create(
            judgment_set=judgment_set,
            name=metric,
            description=description[:2000],
            higher_is_better=metric not in lower,
            report=report,
        )
        for metric in parsed.metrics
    ]
    ExternalScore.objects.bulk_create(
        (
            ExternalScore(
                metric=metric, system=systems[row.system], external_id=row.item, score=row.scores[k]
            )
            for row in rows
            for k, metric in enumerate(created)
        ),
        batch_size=2000,
    )
    analyze_after_commit(ExternalScore, rows=len(rows) * len(created))
    return created


@transaction.atomic
def external_metrics_import(
    *,
    judgment_set: JudgmentSet,
    user: User,
    name: str,
    data: bytes,
    metrics: list[str] | None = None,
    lower_is_better: list[str] | None = None,
    description: str = "",
    columns: list[MappedColumn] | None = None,
) -> list[ExternalMetric]:
    """Read a file of per-response metric scores and store each metric column's scores on
    `judgment_set`. `metrics`: the columns to take (default every numeric column not otherwise
    roled); `lower_is_better`: those of them where a lower score is better; `description`:
    how they were computed (shown as their signature). Only the set's dataset's owner or staff
    may; `MetricScoresRejected` (nothing written) names each bad line and column."""
    if not (user.is_staff or judgment_set.dataset.owner_id == user.pk):
        raise PermissionDenied("Only the dataset's owner can add metric scores to its judgments.")
    parsed, lower = metric_scores_read(
        name=name, data=data, metrics=metrics, lower_is_better=lower_is_better, columns=columns
    )
    _refuse_taken_names(parsed, judgment_set)
    systems, items = _judged(judgment_set)
    rows, warnings = _usable(parsed, systems, items)
    if not rows:
        metric_scores_refuse(
            [*warnings, LineProblem(0, "no row scores a response judged in the set")]
        )
    return external_metrics_store(
        parsed=parsed,
        rows=rows,
        systems=systems,
        lower=lower,
        description=description,
        warnings=warnings,
        judgment_set=judgment_set,
    )


def _report(parsed: MetricFile, rows: list[MetricRow], warnings: list[LineProblem]) -> dict:
    counted = problems_counted([*parsed.problems, *warnings])
    return {
        "file": parsed.name,
        "rows": len(parsed.rows),
        "imported": len(rows),
        "metrics": parsed.metrics,
        "warnings": len(counted),
        "problems": [p.as_dict() for p in counted[:MAX_LISTED]],
    }
