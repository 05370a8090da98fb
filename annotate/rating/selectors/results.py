"""Reads of what raters see and what a campaign found: the text(s) of a rating, and results.

A campaign on outputs has results of its own: per system, the mean score with a 95% interval
(Likert), or per pair of systems, wins, ties and losses and the mean preference (pairwise). A
campaign on references has weights instead (`annotate.rating.selectors.dashboard`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from annotate.judgments.models import SystemOutput
from annotate.rating.models import Campaign, Rating
from annotate.rating.selectors.campaigns import counted_ratings


@dataclass(frozen=True)
class Shown:
    context: list[str]
    message: str
    texts: list[str]  # one text, or two in the order shown (left, right)


def rating_display(*, rating: Rating) -> Shown:
    """What the rater sees: the item, and the reference, the control's text, or the output(s)
    — a pair left and right in the order recorded for this rating."""
    slot, item = rating.slot, rating.slot.item
    if rating.control_text:
        texts = [rating.control_text]
    elif slot.reference is not None:
        texts = [slot.reference.text]
    else:
        systems = [s for s in (slot.system_a_id, slot.system_b_id) if s is not None]
        found = dict(
            SystemOutput.objects.filter(
                system_id__in=systems, item_id=slot.item_id, split=item.split.name
            ).values_list("system_id", "text")
        )
        texts = [found.get(s, "") for s in systems]
        if len(texts) == 2 and not rating.a_on_left:
            texts.reverse()
    return Shown(list(item.context), item.message, texts)


def campaign_means(*, campaign: Campaign) -> dict[tuple, float]:
    """Likert: (system, item id) → mean score. Pairwise: (system A, system B, item id) → mean
    preference for A (−2 … +2). Only counted ratings (quality control) are used."""
    sums: dict[tuple, list[float]] = defaultdict(lambda: [0.0, 0.0])
    rows = counted_ratings(campaign=campaign).values_list(
        "slot__system_a__name",
        "slot__system_b__name",
        "slot__item__external_id",
        "score",
        "preference",
    )
    for a, b, item_id, score, preference in rows.iterator():
        value = preference if campaign.pairwise else score
        if value is None:
            continue
        cell = sums[(a, b, item_id) if campaign.pairwise else (a, item_id)]
        cell[0] += value
        cell[1] += 1
    return {key: total / n for key, (total, n) in sums.items()}


def _interval(values: list[float]) -> tuple[float, float | None, float | None]:
    """Mean and 95% t-interval over units (items), which are what was sampled."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, None, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    from scipy.stats import t as student_t  # ~0.8 s to import: only when results are read

    half = float(student_t.ppf(0.975, len(values) - 1)) * sd / math.sqrt(len(values))
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class ResultRow:
    system: str
    versus: str | None  # pairwise: the other system
    items: int  # items with a counted rating
    mean: float  # Likert: mean score; pairwise: mean preference for `system` (−2 … +2)
    ci_low: float | None
    ci_high: float | None
    wins: int | None = None  # pairwise: items where `system` was preferred on average
    ties: int | None = None
    losses: int | None = None


def campaign_results(*, campaign: Campaign) -> list[ResultRow]:
    """Per system (Likert, best first) or per pair (pairwise), from counted ratings, with each
    item's mean rating as one observation."""
    per_unit: dict[tuple, list[float]] = defaultdict(list)
    for key, mean in campaign_means(campaign=campaign).items():
        per_unit[key[:-1]].append(mean)
    rows = []
    for unit, values in per_unit.items():
        mean, low, high = _interval(values)
        if campaign.pairwise:
            wins, losses = sum(v > 0 for v in values), sum(v < 0 for v in values)
            ties = len(values) - wins - losses
            rows.append(
                ResultRow(unit[0], unit[1], len(values), mean, low, high, wins, ties, losses)
            )
        else:
            rows.append(ResultRow(unit[0], None, len(values), mean, low, high))
    return sorted(rows, key=lambda row: (-row.mean, row.system, row.versus or ""))
