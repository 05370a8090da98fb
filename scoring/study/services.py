"""Correlation studies in the app: gather the inputs, run the engine as a job, export.

The engine (`scoring.study.analysis`) is plain numpy; this module turns a release's references, the
outputs of evaluated systems and human scores (imported judgments or an output campaign) into
its `StudyData`, and stores the result on the study.
"""

from __future__ import annotations

import itertools

import numpy as np
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from annotate.judgments.models import JudgmentSet
from annotate.judgments.selectors import eval_outputs, judgment_means
from annotate.rating.models import Campaign
from annotate.rating.selectors.results import campaign_means
from annotate.releases.models import Release, ReleaseItem
from core.runs.context import RunContext
from core.runs.engine import run_create
from core.strict_json import json_safe
from core.tabular import csv_text
from scoring.study.analysis.configs import StudyOptions
from scoring.study.analysis.data import StudyData, StudyRef
from scoring.study.models import CorrelationStudy

STUDY_KIND = "correlation-study"


def _release_refs(release: Release, split: str) -> tuple[list[str], list[list[StudyRef]]]:
    """Items with at least one positively weighted reference (ΔBLEU's rule, as leaderboards)."""
    items = ReleaseItem.objects.filter(release=release, split=split).prefetch_related("references")
    ids, refs = [], []
    for item in items.order_by("position"):
        rated = [
            StudyRef(ref.text, float(w), ref.origin == "original")
            for ref in item.references.all()
            if (w := ref.weight_for(release.weight_variant)) is not None
        ]
        if any(r.weight > 0 for r in rated):
            ids.append(item.external_id)
            refs.append(rated)
    return ids, refs


def _human(study: CorrelationStudy) -> tuple[dict, bool]:
    """Per-item human scores and whether they are already pairwise preferences."""
    if study.output_campaign is not None:
        campaign = study.output_campaign
        return campaign_means(campaign=campaign), campaign.pairwise
    if study.judgment_set is None:
        raise ValidationError("The study has no human scores.")
    criterion = study.criterion or (study.judgment_set.criteria or [""])[0]
    return judgment_means(judgment_set=study.judgment_set, criterion=criterion), False


def _pair_difference(human: dict, pairwise: bool, a: str, b: str, item_id: str) -> float:
    if pairwise:
        if (a, b, item_id) in human:
            return human[(a, b, item_id)]
        return -human.get((b, a, item_id), np.nan)
    return human.get((a, item_id), np.nan) - human.get((b, item_id), np.nan)


def default_pairs(human: dict, pairwise: bool) -> list[tuple[str, str]]:
    if pairwise:
        return sorted({(key[0], key[1]) for key in human})
    return list(itertools.combinations(sorted({key[0] for key in human}), 2))


def study_data(study: CorrelationStudy) -> StudyData:
    ids, refs = _release_refs(study.release, study.split)
    outputs = eval_outputs(dataset=study.release.dataset, split=study.split)
    human, pairwise = _human(study)
    pairs = [tuple(p) for p in study.pairs] or default_pairs(human, pairwise)
    notes = []
    missing = sorted({s for p in pairs for s in p} - set(outputs))
    if missing:
        notes.append(f"no outputs for {', '.join(missing)}: their pairs are left out")
        pairs = [p for p in pairs if not set(p) & set(missing)]
    diffs = {
        (a, b): np.array([_pair_difference(human, pairwise, a, b, i) for i in ids])
        for a, b in pairs
    }
    by_system = {s: [outputs[s].get(i) for i in ids] for s in {x for p in pairs for x in p}}
    return StudyData(ids, refs, by_system, [(a, b) for a, b in pairs], diffs, notes)


@transaction.atomic
def study_create(
    *,
    owner: User,
    name: str,
    release: Release,
    split: str,
    judgment_set: JudgmentSet | None = None,
    output_campaign: Campaign | None = None,
    criterion: str = "",
    pairs: list | None = None,
    options: dict | None = None,
) -> CorrelationStudy:
    """Check the inputs and queue the study as a job with progress."""
    dataset = release.dataset
    if not (owner.is_staff or dataset.owner_id == owner.pk):
        raise ValidationError("Studies run on your own datasets' releases.")
    source = judgment_set or output_campaign
    if source is None or (judgment_set and output_campaign):
        raise ValidationError("Choose one source of human scores: judgments or a campaign.")
    if output_campaign is not None and output_campaign.rates_references:
        raise ValidationError("That campaign rates references: choose one that rates outputs.")
    if source.dataset_id != dataset.pk:
        raise ValidationError("The human scores must belong to the release's dataset.")
    checked = StudyOptions.from_dict(options or {})
    if checked.unit_size < 1 or not 1 <= checked.assignments <= 10_000:
        raise ValidationError("Unit size must be ≥ 1 and assignments 1 … 10,000.")
    study = CorrelationStudy.objects.create(
        owner=owner,
        name=name,
        release=release,
        split=split,
        judgment_set=judgment_set,
        output_campaign=output_campaign,
        criterion=criterion,
        pairs=pairs or [],
        options=options or {},
    )
    study.run = run_create(
        kind=STUDY_KIND, owner=owner, scope=f"study:{study.pk}", params={"study_id": study.pk}
    )
    study.save(update_fields=["run"])
    return study


def study_run(run: RunContext) -> dict:
    """The run's body: build the inputs, run the study with progress, store the result."""
    # The engine brings scipy.stats (~0.4 s to import): loaded by the worker that runs it.
    from scoring.study.analysis.engine import run_study

    study = CorrelationStudy.objects.select_related("release__dataset").get(
        pk=run.params["study_id"]
    )
    data = study_data(study)
    options = StudyOptions.from_dict(
        {**study.options, "processes": settings.STUDY_PROCESSES, "threads": settings.STUDY_THREADS}
    )

    def progress(done: int, total: int, message: str) -> None:
        run.progress(done, total, message)

    result, undefined = json_safe(run_study(data, options, progress))
    if undefined:
        result.setdefault("notes", []).append(
            f"{undefined} value(s) are undefined (shown as null): a correlation needs both the "
            "human and the metric differences to vary across units, and here one did not."
        )
    with run.fenced():  # a superseded attempt must not overwrite the live one's result
        CorrelationStudy.objects.filter(pk=study.pk).update(result=result)
    return {"study": study.pk, "n_units": result["n_units"], "pairs": len(result["pairs"])}


def _fmt(value: object) -> str:
    return "" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)


def study_export_csv(study: CorrelationStudy) -> str:
    """Table 2 rows, then the sweeps as (sweep, metric, x, rho) rows."""
    rows: list[list[object]] = []
    for row in study.result.get("table", []):
        rho, tau, vs = row["rho"], row.get("tau", {}), row.get("vs_baseline", {})
        rows.append(
            [
                _fmt(x)
                for x in (
                    row["metric"],
                    row["refs"],
                    row["order"],
                    rho["value"],
                    rho["low"],
                    rho["high"],
                    tau.get("value"),
                    tau.get("low"),
                    tau.get("high"),
                    vs.get("diff"),
                    vs.get("p"),
                )
            ]
        )
    rows += [[], ["sweep", "metric", "x", "rho"]]
    for sweep, series in study.result.get("sweeps", {}).items():
        for metric, points in series.items():
            rows += [[sweep, metric, _fmt(x), _fmt(rho)] for x, rho in points]
    header = [
        "metric",
        "refs",
        "order",
        "rho",
        "rho_low",
        "rho_high",
        "tau",
        "tau_low",
        "tau_high",
        "vs_baseline_diff",
        "vs_baseline_p",
    ]
    return csv_text(header, rows)
