"""Reads of human evaluation: who may see judgments, systems' outputs, per-item judgments."""

from __future__ import annotations

from collections import defaultdict

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet

from annotate.datasets.models import Dataset
from annotate.judgments.bundles import Recall, Remembered
from annotate.judgments.columns import header_key
from annotate.judgments.models import (
    ColumnMapping,
    EvalSystem,
    ExternalMetric,
    ExternalScore,
    Judgment,
    JudgmentSet,
    SystemOutput,
)
from core.errors import NotFound


def _manages(user: User | AnonymousUser, owner_id: int) -> bool:
    return user.is_authenticated and (user.is_staff or owner_id == user.pk)


def judgment_set_get_managed(*, user: User | AnonymousUser, pk: int) -> JudgmentSet:
    found = JudgmentSet.objects.select_related("dataset").filter(pk=pk).first()
    if found is None or not _manages(user, found.dataset.owner_id):
        raise NotFound("No such set of judgments.")
    return found


def eval_outputs(*, dataset: Dataset, split: str) -> dict[str, dict[str, str]]:
    """system name → {item external id: output}."""
    out: dict[str, dict[str, str]] = defaultdict(dict)
    rows = SystemOutput.objects.filter(system__dataset=dataset, split=split).values_list(
        "system__name", "external_id", "text"
    )
    for system, item_id, text in rows.iterator():
        out[system][item_id] = text
    return dict(out)


def eval_systems(*, dataset: Dataset) -> QuerySet[EvalSystem]:
    return EvalSystem.objects.filter(dataset=dataset)


def judgment_means(*, judgment_set: JudgmentSet, criterion: str) -> dict[tuple[str, str], float]:
    """(system name, item id) → the judges' mean score on `criterion`."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    rows = Judgment.objects.filter(judgment_set=judgment_set, criterion=criterion).values_list(
        "system__name", "external_id", "score"
    )
    for system, item_id, score in rows.iterator():
        cell = sums[(system, item_id)]
        cell[0] += score
        cell[1] += 1
    return {key: total / n for key, (total, n) in sums.items()}


def column_mapping_find(*, owner: User, file: str, header: list[str]) -> ColumnMapping | None:
    """The mapping `owner` gave a `file` with this header before, if any."""
    return ColumnMapping.objects.filter(
        owner=owner, file=file, header_hash=header_key(header)
    ).first()


def column_mapping_recall(*, owner: User) -> Recall:
    """What `bundle_parse` asks for each file's header: the owner's remembered mapping."""

    def recall(file: str, header: list[str]) -> Remembered | None:
        found = column_mapping_find(owner=owner, file=file, header=header)
        return Remembered(list(found.roles), dict(found.options)) if found else None

    return recall


def external_metrics_of(*, judgment_set: JudgmentSet) -> QuerySet[ExternalMetric]:
    """The metrics whose scores were uploaded to the set, by name."""
    return judgment_set.external_metrics.order_by("name")


def external_scores(
    *, judgment_set: JudgmentSet, names: list[str] | None = None
) -> list[tuple[ExternalMetric, dict[tuple[str, str], float]]]:
    """Each of the set's external metrics (those `names`, or all) with its scores by
    (system name, item id)."""
    metrics = list(external_metrics_of(judgment_set=judgment_set))
    if names is not None:
        metrics = [m for m in metrics if m.name in set(names)]
    return external_scores_of(metrics=metrics)


def external_scores_of(
    *, metrics: list[ExternalMetric]
) -> list[tuple[ExternalMetric, dict[tuple[str, str], float]]]:
    """Each metric with its scores by (system name, item id), whatever holds it (a judgment
    set, or a leaderboard on the scoring side)."""
    by_metric: dict[int, dict[tuple[str, str], float]] = {m.pk: {} for m in metrics}
    rows = ExternalScore.objects.filter(metric__in=metrics).values_list(
        "metric_id", "system__name", "external_id", "score"
    )
    for metric_id, system, item_id, score in rows.iterator():
        by_metric[metric_id][(system, item_id)] = score
    return [(m, by_metric[m.pk]) for m in metrics]


def judgment_set_by_id(*, pk: int) -> JudgmentSet | None:
    """A set of judgments with its dataset's owner, for commands (which act as that owner)."""
    return JudgmentSet.objects.select_related("dataset__owner").filter(pk=pk).first()
