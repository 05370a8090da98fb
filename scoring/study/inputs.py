"""What a correlation study reads from the database, turned into the engine's `StudyData`.

Three choices shape it, each stated on the result:
- **weights**: a frozen release's, a reference campaign's current ones, or +1 for every
  reference (plain multi-reference metrics) when nobody rated them. Items keep only rated
  references and need one with a positive weight (ΔBLEU's rule, as on leaderboards);
- **human scores**: imported judgments (one criterion, several side by side, or their mean) or
  an output campaign (Likert means, or pairwise preferences);
- **fairness**: excluded systems, and leave-one-out — a reference identical to the output being
  scored is left out of that output's references — switched on automatically when a system's
  outputs coincide with references (human responses that also serve as references).
Reads only: nothing here writes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from django.core.exceptions import ValidationError

from annotate.datasets.models import Item
from annotate.judgments.models import ExternalMetric, Judgment, JudgmentSet
from annotate.judgments.selectors import (
    eval_outputs,
    external_metrics_of,
    external_scores_of,
    judgment_means,
)
from annotate.rating.models import Campaign, Weight
from annotate.rating.selectors.results import campaign_means
from annotate.releases.models import Release, ReleaseItem
from scoring.leaderboards.selectors.external_metrics import campaign_board_metrics
from scoring.study.analysis.data import ExternalScores, StudyData, StudyInputError, StudyRef
from scoring.study.analysis.loo import coinciding_systems
from scoring.study.models import CorrelationStudy, CriteriaCombination, LeaveOneOut, WeightSource

# A system whose outputs equal one of the item's references this often is a copy of them.
COINCIDING_SHARE = 0.5
CAMPAIGN_CRITERION = "rating"
Human = dict[tuple, float]


@dataclass
class HumanScores:
    """Per criterion the per-(system, item) means — or per-(a, b, item) preferences."""

    by_criterion: dict[str, Human]
    pairwise: bool
    notes: list[str] = field(default_factory=list)

    @property
    def systems(self) -> set[str]:
        return {s for human in self.by_criterion.values() for s in _systems_of(human)}


def _systems_of(human: Human) -> set[str]:
    return {s for key in human for s in key[:-1]}


def _release_refs(release: Release, split: str) -> tuple[list[str], list[list[StudyRef]]]:
    items = ReleaseItem.objects.filter(release=release, split=split).prefetch_related("references")
    rows = [
        (
            item.external_id,
            [
                (r.text, r.weight_for(release.weight_variant), r.origin)
                for r in item.references.all()
            ],
        )
        for item in items.order_by("position")
    ]
    return _kept(rows)


def _dataset_refs(study: CorrelationStudy) -> tuple[list[str], list[list[StudyRef]]]:
    items = Item.objects.filter(split__dataset=study.dataset, split__name=study.split)
    items = items.order_by("position").prefetch_related("references")
    if study.weight_campaign is not None:
        live = Weight.objects.filter(campaign=study.weight_campaign, weight__isnull=False)
        weights = dict(live.values_list("reference_id", "weight"))
    rows = [
        (
            item.external_id,
            [
                (r.text, 1.0 if study.weight_campaign is None else weights.get(r.pk), r.origin)
                for r in item.references.all()
            ],
        )
        for item in items
    ]
    return _kept(rows)


def _kept(rows: list[tuple[str, list]]) -> tuple[list[str], list[list[StudyRef]]]:
    """Items with at least one positively weighted reference, their rated references only."""
    ids, refs = [], []
    for item_id, references in rows:
        rated = [
            StudyRef(text, float(w), origin == "original")
            for text, w, origin in references
            if w is not None
        ]
        if any(r.weight > 0 for r in rated):
            ids.append(item_id)
            refs.append(rated)
    return ids, refs


def study_refs(study: CorrelationStudy) -> tuple[list[str], list[list[StudyRef]]]:
    if study.weight_source == WeightSource.RELEASE and study.release is not None:
        return _release_refs(study.release, study.split)
    return _dataset_refs(study)


def weights_statement(study: CorrelationStudy) -> str:
    """The choice of weights, in words, for the result."""
    if study.weight_source == WeightSource.RELEASE and study.release is not None:
        return f"Reference weights of release {study.release} ({study.release.weight_variant})."
    if study.weight_campaign is not None:
        return f"Current reference weights of campaign “{study.weight_campaign.name}”."
    return (
        "No rating campaign: every reference counts with weight +1, so the metrics are plain "
        "multi-reference metrics (ΔBLEU equals BLEU)."
    )


def judgment_criteria(judgment_set: JudgmentSet) -> list[str]:
    """The criteria the set has (as its header named them)."""
    return list(judgment_set.criteria) or list(
        Judgment.objects.filter(judgment_set=judgment_set)
        .values_list("criterion", flat=True)
        .distinct()
    )


def chosen_criteria(study: CorrelationStudy) -> list[str]:
    if study.judgment_set is None:
        return [CAMPAIGN_CRITERION]
    valid = judgment_criteria(study.judgment_set)
    return list(study.criteria) or valid[:1]


def mean_criterion_name(criteria: list[str]) -> str:
    return f"mean({', '.join(criteria)})"


def human_scores(study: CorrelationStudy) -> HumanScores:
    if study.output_campaign is not None:
        campaign = study.output_campaign
        return HumanScores(
            {CAMPAIGN_CRITERION: campaign_means(campaign=campaign)}, campaign.pairwise
        )
    if study.judgment_set is None:
        raise ValidationError("The study has no human scores.")
    criteria = chosen_criteria(study)
    per = {c: judgment_means(judgment_set=study.judgment_set, criterion=c) for c in criteria}
    if study.combine == CriteriaCombination.MEAN and len(criteria) > 1:
        return HumanScores({mean_criterion_name(criteria): _mean_of(per)}, False)
    return HumanScores(per, False)


def _mean_of(per: dict[str, Human]) -> Human:
    """Per (system, item) the mean of the criteria's means, where every criterion was judged."""
    keys = set.intersection(*(set(h) for h in per.values()))
    return {key: float(np.mean([h[key] for h in per.values()])) for key in keys}


def _pair_difference(human: Human, pairwise: bool, a: str, b: str, item_id: str) -> float:
    if pairwise:
        if (a, b, item_id) in human:
            return human[(a, b, item_id)]
        return -human.get((b, a, item_id), np.nan)
    return human.get((a, item_id), np.nan) - human.get((b, item_id), np.nan)


def default_pairs(systems: set[str], human: Human, pairwise: bool) -> list[tuple[str, str]]:
    if pairwise:
        return sorted({(k[0], k[1]) for k in human if k[0] in systems and k[1] in systems})
    return list(itertools.combinations(sorted(systems), 2))


def study_data(study: CorrelationStudy) -> StudyData:
    """The engine's inputs; notes say what was left out and why."""
    ids, refs = study_refs(study)
    outputs = eval_outputs(dataset=study.dataset, split=study.split)
    scores = human_scores(study)
    primary = next(iter(scores.by_criterion.values()))
    excluded = set(study.excluded_systems)
    systems = scores.systems - excluded
    pairs = [tuple(p) for p in study.pairs if not set(p) & excluded] or default_pairs(
        systems, primary, scores.pairwise
    )
    notes = list(scores.notes)
    if excluded:
        notes.append(f"excluded systems: {', '.join(sorted(excluded))}")
    missing = sorted({s for p in pairs for s in p} - set(outputs))
    if missing:
        notes.append(f"no outputs for {', '.join(missing)}: their pairs are left out")
        pairs = [p for p in pairs if not set(p) & set(missing)]
    in_pairs = sorted({s for p in pairs for s in p})
    _check_judged(study, ids, pairs, primary)
    human = {
        criterion: {
            (a, b): np.array([_pair_difference(h, scores.pairwise, a, b, i) for i in ids])
            for a, b in pairs
        }
        for criterion, h in scores.by_criterion.items()
    }
    system_scores = (
        {}
        if scores.pairwise
        else {
            criterion: {s: np.array([h.get((s, i), np.nan) for i in ids]) for s in in_pairs}
            for criterion, h in scores.by_criterion.items()
        }
    )
    by_system = {s: [outputs[s].get(i) for i in ids] for s in in_pairs}
    data = StudyData(
        ids,
        refs,
        by_system,
        [(a, b) for a, b in pairs],
        human,
        notes=notes,
        system_scores=system_scores,
    )
    data.external = study_external(study, ids, in_pairs)
    _settle_leave_one_out(study, data)
    return data


def external_metrics_for(
    judgment_set: JudgmentSet | None, output_campaign: Campaign | None
) -> list[ExternalMetric]:
    """The uploaded metrics a study of this human source may use: the judgment set's, or those
    a leaderboard's owner uploaded for the submissions the output campaign rates."""
    if judgment_set is not None:
        return list(external_metrics_of(judgment_set=judgment_set))
    if output_campaign is not None:
        return campaign_board_metrics(campaign=output_campaign)
    return []


def external_metric_names(
    judgment_set: JudgmentSet | None, output_campaign: Campaign | None = None
) -> list[str]:
    return [m.name for m in external_metrics_for(judgment_set, output_campaign)]


def study_external(study: CorrelationStudy, ids: list[str], systems: list[str]) -> list:
    """The uploaded metrics (the judgment set's, or the leaderboard's behind the output
    campaign) the study's options choose (default: all), each aligned on the study's items
    (NaN where it gave no score)."""
    chosen = study.options.get("external")
    metrics = external_metrics_for(study.judgment_set, study.output_campaign)
    if chosen is not None:
        metrics = [m for m in metrics if m.name in set(chosen)]
    found = external_scores_of(metrics=metrics)
    return [
        ExternalScores(
            metric.name,
            {s: np.array([scores.get((s, i), np.nan) for i in ids]) for s in systems},
            metric.higher_is_better,
            metric.description,
        )
        for metric, scores in found
    ]


def _check_judged(study: CorrelationStudy, ids: list[str], pairs: list, human: Human) -> None:
    """Refuse, with the reason, a study with nothing to correlate: no pair of systems with
    outputs, or no item of the study's split judged (judgments of another split). A human
    score's key ends with its item, (system, item) or (a, b, item)."""
    where = f"the {study.split} split"
    if not pairs:
        raise StudyInputError(
            f"No pair of systems has both outputs and human scores on {where}: a study "
            "compares systems two by two."
        )
    known = set(ids)
    judged = {key[-1] for key in human if key[-1] in known}
    if not judged:
        source = study.judgment_set or study.output_campaign
        split = getattr(study.judgment_set, "split", None)
        on = f" (its judgments are on the {split} split)" if split and split != study.split else ""
        raise StudyInputError(
            f"None of the {len(ids)} items of {where} has a human score in {source}{on}: "
            "choose the split that was judged."
        )


def _settle_leave_one_out(study: CorrelationStudy, data: StudyData) -> None:
    shares = coinciding_systems(data)
    copies = {s: share for s, share in shares.items() if share >= COINCIDING_SHARE}
    if study.leave_one_out == LeaveOneOut.ON:
        data.leave_one_out = True
        data.notes.append("leave one out: a reference identical to an output is not its reference")
    elif study.leave_one_out == LeaveOneOut.AUTO and copies:
        data.leave_one_out = True
        listed = ", ".join(
            f"{s} ({share:.0%} of its outputs)" for s, share in sorted(copies.items())
        )
        data.notes.append(
            f"leave one out switched on: the outputs of {listed} coincide with references; a "
            "reference identical to an output is left out of that output's references"
        )
    elif copies:
        listed = ", ".join(sorted(copies))
        data.notes.append(f"outputs of {listed} coincide with references and are scored with them")


def campaign_system_names(campaign: Campaign) -> set[str]:
    return set(campaign.systems.values_list("name", flat=True))


def judged_system_names(judgment_set: JudgmentSet) -> set[str]:
    rows = Judgment.objects.filter(judgment_set=judgment_set).values_list("system__name", flat=True)
    return set(rows.distinct())
