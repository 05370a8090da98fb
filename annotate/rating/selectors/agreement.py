"""Reads of agreement between a campaign's raters, over the ratings that count."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from annotate.rating.models import Campaign, Rating, RatingKind, RatingStatus
from annotate.rating.selectors.campaigns import counted_ratings
from core.agreement import Triple, alpha, consensus_agreement, value_counts


@dataclass(frozen=True)
class Agreement:
    alpha_interval: float | None
    alpha_ordinal: float | None
    units: int  # units rated at least twice: what alpha is computed on
    ratings: int
    raters: int
    # rater id → {"rho", "n"}, over every answered normal rating, so that raters excluded by
    # quality control can be compared too.
    per_rater: dict[int, dict[str, float | int | None]]


def _triples(ratings: QuerySet[Rating]) -> list[Triple]:
    """(rater, unit, score); a pair's score as seen from system A (5: A much better), since the
    sides are drawn per rating."""
    rows = ratings.values_list("rater_id", "slot_id", "score", "preference")
    return [
        (rater, unit, round(3 + preference) if preference is not None else score)
        for rater, unit, score, preference in rows
        if score is not None
    ]


def campaign_triples(*, campaign: Campaign) -> list[Triple]:
    return _triples(counted_ratings(campaign=campaign))


def _answered_triples(campaign: Campaign) -> list[Triple]:
    answered = Rating.objects.filter(
        campaign=campaign, kind=RatingKind.NORMAL, status=RatingStatus.DONE
    )
    return _triples(answered)


def campaign_alpha_interval(*, campaign: Campaign) -> tuple[float | None, int]:
    """Krippendorff's alpha (interval) over the counted ratings, and the units it is computed
    on: what a release's build information records, without the per-rater consensus."""
    counts = value_counts(campaign_triples(campaign=campaign), campaign.scale)
    return alpha(counts, campaign.scale, "interval"), int(counts.shape[0])


def campaign_agreement(*, campaign: Campaign) -> Agreement:
    """Krippendorff's alpha (interval and ordinal) and each rater's agreement with the others."""
    triples = campaign_triples(campaign=campaign)
    domain = campaign.scale
    counts = value_counts(triples, domain)
    return Agreement(
        alpha_interval=alpha(counts, domain, "interval"),
        alpha_ordinal=alpha(counts, domain, "ordinal"),
        units=int(counts.shape[0]),
        ratings=len(triples),
        raters=len({rater_id for rater_id, _, _ in triples}),
        per_rater=consensus_agreement(_answered_triples(campaign)),
    )
