"""Correlation studies in the app: check the inputs, run the engine as a job, export.

The engine (`scoring.study.analysis`) is plain numpy; `scoring.study.inputs` reads its
`StudyData` from the database, and this module stores the result on the study, with the
choices that shaped it (weights, criteria, excluded systems, leave-one-out) stated.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from annotate.datasets.models import Dataset
from annotate.judgments.models import JudgmentSet
from annotate.rating.models import Campaign
from annotate.releases.models import Release
from core.runs.context import RunContext
from core.runs.engine import run_create
from core.strict_json import json_safe
from core.tabular import csv_text
from scoring.study.analysis.configs import StudyOptions
from scoring.study.inputs import (
    CAMPAIGN_CRITERION,
    campaign_system_names,
    external_metric_names,
    judged_system_names,
    judgment_criteria,
    study_data,
    weights_statement,
)
from scoring.study.models import CorrelationStudy, CriteriaCombination, LeaveOneOut, WeightSource

STUDY_KIND = "correlation-study"


def _one_of_yours(owner: User, dataset: Dataset, *sources: object) -> None:
    if not (owner.is_staff or dataset.owner_id == owner.pk):
        raise ValidationError("Studies run on your own datasets.")
    for source in sources:
        if source is not None and getattr(source, "dataset_id", None) != dataset.pk:
            raise ValidationError(f"{source} belongs to another dataset than the study's.")


def _checked_criteria(judgment_set: JudgmentSet | None, criteria: list[str], combine: str) -> None:
    if judgment_set is None:
        if criteria and criteria != [CAMPAIGN_CRITERION]:
            raise ValidationError(
                {"criteria": "A campaign's ratings have no criteria: leave the field empty."}
            )
        return
    valid = judgment_criteria(judgment_set)
    wrong = [c for c in criteria if c not in valid]
    if wrong:
        named = ", ".join(map(repr, wrong))
        raise ValidationError(
            {"criteria": f"No criterion {named}: choose from {', '.join(valid)}."}
        )
    if combine == CriteriaCombination.MEAN and len(criteria or valid[:1]) < 2:
        raise ValidationError({"combine": "The mean of criteria needs at least two criteria."})


def _checked_systems(known: set[str], excluded: list[str], pairs: list) -> None:
    listed = ", ".join(sorted(known)) or "none"
    unknown = sorted({*excluded, *(s for p in pairs for s in p)} - known)
    if unknown:
        raise ValidationError(
            {"systems": f"No system {', '.join(map(repr, unknown))} has human scores: {listed}."}
        )
    if len(known - set(excluded)) < 2:
        raise ValidationError({"excluded_systems": "A study needs at least two systems left."})


def _checked_options(options: dict) -> None:
    # Here, not in the run: a metric name the registry lacks failed three attempts, with
    # retries, and a θ of 5 "succeeded" with every reference set the same.
    problems = StudyOptions.from_dict(options).problems()
    if problems:
        raise ValidationError({"options": [f"{name}: {why}" for name, why in problems.items()]})


def _checked_external(
    judgment_set: JudgmentSet | None, output_campaign: Campaign | None, options: dict
) -> None:
    """The uploaded metrics an option names must be the human source's: the judgment set's, or
    the leaderboard's whose submissions the output campaign rates."""
    chosen = options.get("external")
    if chosen is None:
        return
    if not isinstance(chosen, list | tuple) or not all(isinstance(n, str) for n in chosen):
        raise ValidationError({"options": ["external: a list of metric names."]})
    known = set(external_metric_names(judgment_set, output_campaign))
    unknown = sorted(set(chosen) - known)
    if unknown:
        have = ", ".join(sorted(known)) or "none"
        holder = "judgment set" if judgment_set is not None else "campaign's leaderboard"
        raise ValidationError(
            {"options": [f"external: no uploaded metric {', '.join(map(repr, unknown))} "
                         f"(the {holder} has: {have})."]}
        )  # fmt: skip


@transaction.atomic
def study_create(
    *,
    owner: User,
    name: str,
    split: str,
    release: Release | None = None,
    weight_campaign: Campaign | None = None,
    judgment_set: JudgmentSet | None = None,
    output_campaign: Campaign | None = None,
    criteria: list[str] | None = None,
    combine: str = CriteriaCombination.SEPARATE,
    excluded_systems: list[str] | None = None,
    leave_one_out: str = LeaveOneOut.AUTO,
    pairs: list | None = None,
    options: dict | None = None,
    send: bool = True,
) -> CorrelationStudy:
    """Check every input at once and queue the study as a job with progress.

    Weights come from `release`, else from `weight_campaign`, else every reference counts +1.
    `send=False`: the caller runs the study in its own process (the command line)."""
    human = judgment_set or output_campaign
    if human is None or (judgment_set and output_campaign):
        raise ValidationError("Choose one source of human scores: judgments or a campaign.")
    if output_campaign is not None and output_campaign.rates_references:
        raise ValidationError("That campaign rates references: choose one that rates outputs.")
    if release is not None and weight_campaign is not None:
        raise ValidationError("Choose one source of weights: a release or a campaign.")
    if weight_campaign is not None and not weight_campaign.rates_references:
        raise ValidationError("The weights' campaign must rate references.")
    dataset = human.dataset
    _one_of_yours(owner, dataset, release, weight_campaign)
    criteria, excluded, pairs = list(criteria or []), list(excluded_systems or []), pairs or []
    _checked_criteria(judgment_set, criteria, combine)
    known = (
        campaign_system_names(output_campaign)
        if output_campaign is not None
        else judged_system_names(judgment_set)  # type: ignore[arg-type]
    )
    _checked_systems(known, excluded, pairs)
    _checked_options(options or {})
    _checked_external(judgment_set, output_campaign, options or {})
    source = (
        WeightSource.RELEASE
        if release
        else WeightSource.CAMPAIGN
        if weight_campaign
        else WeightSource.UNIFORM
    )
    study = CorrelationStudy.objects.create(
        owner=owner,
        name=name,
        dataset=dataset,
        weight_source=source,
        release=release,
        weight_campaign=weight_campaign,
        split=split,
        judgment_set=judgment_set,
        output_campaign=output_campaign,
        criteria=criteria,
        combine=combine,
        excluded_systems=excluded,
        leave_one_out=leave_one_out,
        pairs=pairs,
        options=options or {},
    )
    study.run = run_create(
        kind=STUDY_KIND,
        owner=owner,
        scope=f"study:{study.pk}",
        params={"study_id": study.pk},
        send=send,
    )
    study.save(update_fields=["run"])
    return study


def study_run(run: RunContext) -> dict:
    """The run's body: build the inputs, run the study with progress, store the result."""
    # The engine brings scipy.stats (~0.4 s to import): loaded by the worker that runs it.
    from scoring.study.analysis.engine import run_study

    study = CorrelationStudy.objects.select_related(
        "dataset", "release", "weight_campaign", "judgment_set", "output_campaign"
    ).get(pk=run.params["study_id"])
    data = study_data(study)
    options = StudyOptions.from_dict(
        {**study.options, "processes": settings.STUDY_PROCESSES, "threads": settings.STUDY_THREADS}
    )

    def progress(done: int, total: int, message: str) -> None:
        run.progress(done, total, message)

    raw = run_study(data, options, progress)
    raw["inputs"] = {
        "weights": weights_statement(study),
        "weight_source": study.weight_source,
        "human": str(study.judgment_set or study.output_campaign),
        "criteria": list(data.human),
        "excluded_systems": list(study.excluded_systems),
        "leave_one_out": bool(data.leave_one_out),
    }
    result, undefined = json_safe(raw)
    if undefined:
        result.setdefault("warnings", []).append(
            f"{undefined} value(s) are undefined (shown as null): a correlation needs both the "
            "human and the metric differences to vary across units, and here one did not."
        )
    with run.fenced():  # a superseded attempt must not overwrite the live one's result
        CorrelationStudy.objects.filter(pk=study.pk).update(result=result)
    return {
        "study": study.pk,
        "n_units": result.get("n_units", 0),
        "pairs": len(result.get("pairs", [])),
    }


def _fmt(value: object) -> str:
    return "" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)


def _interval(part: dict | None) -> list[object]:
    part = part or {}
    return [part.get("value"), part.get("low"), part.get("high")]


TABLE_HEADER = [
    "criterion", "metric", "refs", "order", "rho", "rho_low", "rho_high", "tau", "tau_low",
    "tau_high", "vs_baseline_diff", "vs_baseline_p", "signature",
]  # fmt: skip


def _ranks(level: dict) -> dict[str, dict]:
    return {r["key"]: r for r in (level.get("clusters") or {}).get("ranks", [])}


def _system_metaeval_rows(criterion: str, level: dict) -> list[list[object]]:
    """WMT's meta-evaluation over systems: pairwise accuracy and acc_eq with their intervals,
    SPA, and the significance cluster (absent from results stored before them)."""
    if not level.get("clusters"):
        return []
    ranks = _ranks(level)
    rows: list[list[object]] = [[], ["system_metaeval", criterion, "pairwise_accuracy", "low",
        "high", "acc_eq", "low", "high", "epsilon", "spa", "rank", "signature"]]  # fmt: skip
    for c in level.get("correlations", []):
        cells = [*_interval(c.get("pairwise_accuracy")), *_interval(c.get("acc_eq"))]
        cells += [(c.get("acc_eq") or {}).get("epsilon"), (c.get("spa") or {}).get("value")]
        cells += [ranks.get(c["key"], {}).get("rank"), c.get("signature", "")]
        rows.append([_fmt(x) for x in ("", c["key"], *cells)])
    return rows


def _segment_rows(criterion: str, level: dict) -> list[list[object]]:
    """The segment level: one row per metric and grouping (none: all responses; item:
    WMT's item-grouped average), each statistic with its interval and draws."""
    ranks = _ranks(level)
    rows: list[list[object]] = [[], ["segments", criterion, "grouping", "pearson", "low",
        "high", "spearman", "low", "high", "kendall", "low", "high", "draws", "responses",
        "items_averaged", "items_constant", "acc_eq", "epsilon", "rank", "signature"]]  # fmt: skip
    for c in level.get("correlations", []):
        for grouping in ("none", "item"):
            part = c[grouping]
            cells: list[object] = [grouping]
            for name in ("pearson", "spearman", "kendall"):
                cells += _interval(part[name])
            draws = (str(part[n]["draws"]) for n in ("pearson", "spearman", "kendall"))
            cells.append("/".join(draws))
            cells += [c["responses"], part["pearson"]["n_groups"], part["pearson"]["n_constant"]]
            acc = c["acc_eq"] if grouping == "item" else {}
            cells += [acc.get("value"), acc.get("epsilon"), ranks.get(c["key"], {}).get("rank")]
            rows.append([_fmt(x) for x in ("", c["key"], *cells, c.get("signature", ""))])
    return rows


def study_export_csv(study: CorrelationStudy) -> str:
    """Table 2 rows per criterion; then the system level (systems, correlations, and WMT's
    meta-evaluation); then the segment level per criterion; then the sweeps as
    (sweep, metric, x, rho) rows."""
    result = study.result
    criteria = result.get("criteria") or {"": {"table": result.get("table", [])}}
    rows: list[list[object]] = []
    for criterion, part in criteria.items():
        for row in part["table"]:
            vs = row.get("vs_baseline", {})
            cells = [criterion, row["metric"], row["refs"], row["order"]]
            cells += [*_interval(row["rho"]), *_interval(row.get("tau"))]
            cells += [vs.get("diff"), vs.get("p"), row.get("signature", "")]
            rows.append([_fmt(x) for x in cells])
    for criterion, level in (result.get("systems") or {}).items():
        keys = [c["key"] for c in level.get("correlations", [])]
        rows += [[], ["systems", criterion, "human", "human_low", "human_high", *keys]]
        for system in level.get("systems", []):
            human = system["human"]
            cells = [human.get("value"), human.get("low"), human.get("high")]
            cells += [system["metrics"].get(k) for k in keys]
            rows.append([_fmt(x) for x in ("", system["system"], *cells)])
        rows += [[], ["correlations", criterion, "pearson", "low", "high", "spearman", "low",
                      "high", "kendall", "low", "high", "signature"]]  # fmt: skip
        for c in level.get("correlations", []):
            cells = [*_interval(c["pearson"]), *_interval(c["spearman"]), *_interval(c["kendall"])]
            rows.append([_fmt(x) for x in ("", c["key"], *cells, c.get("signature", ""))])
        rows += _system_metaeval_rows(criterion, level)
    for criterion, level in (result.get("segments") or {}).items():
        rows += _segment_rows(criterion, level)
    rows += [[], ["sweep", "metric", "x", "rho"]]
    for sweep, series in result.get("sweeps", {}).items():
        for metric, points in series.items():
            rows += [[sweep, metric, _fmt(x), _fmt(rho)] for x, rho in points]
    return csv_text(TABLE_HEADER, rows)
