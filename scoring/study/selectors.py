"""Reads of correlation studies: ownership, choices for the form, plots of the result."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Model, Q, QuerySet

from annotate.datasets.models import Dataset
from annotate.judgments.models import EvalSystem, ExternalMetric, JudgmentSet
from annotate.rating.models import Campaign, Subject
from annotate.releases.models import Release
from core.errors import NotFound
from core.plots import lines, scatter
from scoring.study.analysis.configs import StudyOptions
from scoring.study.models import CorrelationStudy


def study_get_managed(*, user: User | AnonymousUser, pk: int) -> CorrelationStudy:
    """The study if the user owns it (or is staff); others get a 404."""
    study = CorrelationStudy.objects.select_related("dataset", "release__dataset", "run").filter(
        pk=pk
    )
    found = study.first()
    if found is None or not user.is_authenticated:
        raise NotFound("No such study.")
    if not (user.is_staff or found.owner_id == user.pk):
        raise NotFound("No such study.")
    return found


def studies_of(*, user: User) -> QuerySet[CorrelationStudy]:
    studies = CorrelationStudy.objects.select_related("dataset", "release__dataset", "run")
    return studies if user.is_staff else studies.filter(owner=user)


def study_choices(*, user: User) -> dict[str, QuerySet]:
    """Releases, judgment sets and output campaigns of the user's datasets, each keyed by the
    study field that picks one of them (so a form limits each field's queryset by name)."""
    mine = {} if user.is_staff else {"dataset__owner": user}
    return {
        "release": Release.objects.filter(**mine).select_related("dataset"),
        "judgment_set": JudgmentSet.objects.filter(**mine).select_related("dataset"),
        "output_campaign": Campaign.objects.filter(subject=Subject.OUTPUTS, **mine).select_related(
            "dataset"
        ),
        "weight_campaign": Campaign.objects.filter(
            subject=Subject.REFERENCES, **mine
        ).select_related("dataset"),
    }


def study_names(*, user: User) -> dict[str, list[str]]:
    """Criteria of the user's judgments, names of their evaluated systems and of the metrics
    uploaded to their judgments and leaderboards, for the form."""
    mine = {} if user.is_staff else {"dataset__owner": user}
    criteria = {c for s in JudgmentSet.objects.filter(**mine) for c in s.criteria}
    systems = EvalSystem.objects.filter(**mine).values_list("name", flat=True).distinct()
    on_judgments = {f"judgment_set__{k}": v for k, v in mine.items()}
    on_boards = {} if user.is_staff else {"leaderboard_link__leaderboard__owner": user}
    metrics = ExternalMetric.objects.filter(
        Q(judgment_set__isnull=False, **on_judgments)
        | Q(leaderboard_link__isnull=False, **on_boards)
    )
    external = sorted(set(metrics.values_list("name", flat=True)))
    return {"criteria": sorted(criteria), "excluded_systems": sorted(systems), "external": external}


SWEEP_TITLES = {
    "theta": "(A) Spearman's ρ by reference-weight threshold θ",
    "unit_size": "(B) Spearman's ρ by unit size M",
    "order": "(C) Spearman's ρ by n-gram order",
}


SWEEP_AXES = {
    "theta": "reference-weight threshold θ",
    "unit_size": "unit size M",
    "order": "n-gram order",
}


def study_unit_size(*, study: CorrelationStudy) -> int:
    """M, the items per unit: the one the result used (the study may fit a smaller one), else
    the one asked for, else the engine's default (a study made without options)."""
    found = (study.result or {}).get("unit_size") or (study.options or {}).get("unit_size")
    return int(found or StudyOptions.unit_size)


def study_plots(*, study: CorrelationStudy) -> list[dict]:
    """One chart per sweep (Figure 2 of the paper), a line per metric; θ decreases to the right."""
    return [
        {
            "sweep": sweep,
            "title": SWEEP_TITLES.get(sweep, sweep),
            # {metric: [(x, ρ or None), …]} as stored: lines() leaves out undefined points.
            "chart": lines(
                series,
                title=SWEEP_TITLES.get(sweep, sweep),
                x_title=SWEEP_AXES.get(sweep, sweep),
                y_title="Spearman's ρ",
                series_title="Metric",
                x_descending=sweep == "theta",
            ),
        }
        for sweep, series in (study.result.get("sweeps") or {}).items()
    ]


# Scatter plots drawn per criterion: the metrics people compare first, then the rest.
SCATTER_LIMIT = 6


def _in_study_order(study: CorrelationStudy, by_criterion: dict) -> list[tuple[str, dict]]:
    """The criteria in the order the study chose them (the primary first): PostgreSQL's jsonb
    keeps an object's keys in an order of its own."""
    chosen = (study.result.get("inputs") or {}).get("criteria") or []
    rank = {name: k for k, name in enumerate(chosen)}
    return sorted(by_criterion.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0]))


def study_criteria_tables(*, study: CorrelationStudy) -> list[dict]:
    """Table 2 per criterion: [{"criterion", "table"}] (one entry for a single criterion)."""
    result = study.result
    criteria = result.get("criteria") or {}
    if not criteria:
        names = (result.get("inputs") or {}).get("criteria") or [""]
        return [{"criterion": names[0], "table": result.get("table", [])}] if result else []
    return [
        {"criterion": name, "table": part["table"]}
        for name, part in _in_study_order(study, criteria)
    ]


def study_system_levels(*, study: CorrelationStudy) -> list[dict]:
    """Per criterion: systems (human mean with interval, each metric's score), correlations over
    systems with their intervals, and a scatter plot of metric against human per metric."""
    levels = []
    for criterion, level in _in_study_order(study, study.result.get("systems") or {}):
        correlations = level.get("correlations", [])
        # Named with the order (BLEU-2): results stored before labels show the bare name.
        columns = [(c["key"], c.get("label", c["display"])) for c in correlations]
        rows = [
            {
                "system": row["system"],
                "human": row["human"],
                "scores": [row["metrics"].get(key) for key, _ in columns],
            }
            for row in level.get("systems", [])
        ]
        plots = [
            scatter(
                [
                    (row["human"].get("value"), row["metrics"].get(c["key"]), row["system"])
                    for row in level.get("systems", [])
                ],  # scatter() leaves out a system without both values
                title=f"{c.get('label', c['display'])} against human {criterion} per system",
                x_title=f"human {criterion} (mean)",
                y_title=c.get("label", c["display"]),
            )
            for c in correlations[:SCATTER_LIMIT]
        ]
        levels.append(
            {
                "criterion": criterion,
                "items": level.get("items"),
                "columns": [display for _, display in columns],
                "rows": rows,
                "correlations": _with_ranks(correlations, level.get("clusters")),
                "clusters": level.get("clusters"),
                "plots": plots,
            }
        )
    return levels


def _with_ranks(rows: list[dict], clusters: dict | None) -> list[dict]:
    """Each metric's row with its significance cluster (`rank`, None when the study has no
    clusters: results stored before them, or pairwise human scores)."""
    labels = {row["key"]: row.get("label", row["key"]) for row in rows}
    ranks = {
        r["key"]: r | {"closest_label": labels.get(r["closest"], r["closest"])}
        for r in (clusters or {}).get("ranks", [])
    }
    return [row | {"rank": ranks.get(row["key"])} for row in rows]


def study_segment_levels(*, study: CorrelationStudy) -> list[dict]:
    """Per criterion with per-response human scores: the segment-level correlations (no
    grouping and item-grouped, with intervals), item-grouped acc_eq and each metric's
    segment-level significance cluster; empty for pairwise human scores."""
    return [
        {
            "criterion": criterion,
            "systems": level.get("systems", []),
            "score": level.get("score", ""),
            "rows": _with_ranks(level.get("correlations", []), level.get("clusters")),
            "clusters": level.get("clusters"),
        }
        for criterion, level in _in_study_order(study, study.result.get("segments") or {})
    ]


def study_source_of_dataset(*, model: type[Model], dataset: Dataset, pk: int) -> Model | None:
    """A study's source of that id in the dataset (its judgments, a campaign or a release), or
    None (for management commands)."""
    return model._default_manager.filter(pk=pk, dataset=dataset).first()
