"""Reads for the owner's campaign dashboard: activity, raters, weights, disagreement, flags."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Q, QuerySet
from django.db.models.functions import TruncHour

from annotate.rating.models import (
    Campaign,
    CampaignRater,
    Rating,
    RatingKind,
    RatingStatus,
    Weight,
)
from annotate.rating.selectors.agreement import Agreement
from annotate.rating.selectors.completion import completion_code_for
from annotate.rating.selectors.ratings_export import rater_pseudonym
from core.queries import count_by

HOURS_SHOWN = 48  # the activity chart covers the last two days of work
WIDEST_SHOWN = 10
FLAGGED_SHOWN = 20
ANSWERED = (RatingStatus.DONE, RatingStatus.SKIPPED, RatingStatus.FLAGGED)


def ratings_per_hour(*, campaign: Campaign, hours: int = HOURS_SHOWN) -> list[tuple[datetime, int]]:
    """Answers per clock hour over the `hours` before the latest answer, empty hours included."""
    answered = Rating.objects.filter(campaign=campaign, status__in=ANSWERED)
    latest = answered.order_by("-finished_at").values_list("finished_at", flat=True).first()
    if latest is None:
        return []
    last = latest.replace(minute=0, second=0, microsecond=0)
    first = last - timedelta(hours=hours - 1)
    hours_answered = answered.filter(finished_at__gte=first).annotate(hour=TruncHour("finished_at"))
    counts = count_by(hours_answered, "hour")
    earliest = min(counts, default=last)
    start = max(first, earliest)
    span = int((last - start).total_seconds() // 3600) + 1
    return [
        (start + timedelta(hours=i), counts.get(start + timedelta(hours=i), 0)) for i in range(span)
    ]


@dataclass(frozen=True)
class RaterRow:
    membership: CampaignRater
    pseudonym: str
    answered: int
    counted: int
    consensus_rho: float | None
    consensus_n: int
    completion_code_valid: bool | None


def raters_overview(*, campaign: Campaign, agreement: Agreement) -> list[RaterRow]:
    """Each rater with their QC verdict, how much they did, and their agreement with the others."""
    memberships = (
        CampaignRater.objects.filter(campaign=campaign)
        .select_related("rater")
        .annotate(
            answered=Count(
                "rater__ratings",
                filter=Q(rater__ratings__campaign=campaign, rater__ratings__status__in=ANSWERED),
            ),
            counted=Count(
                "rater__ratings",
                filter=Q(
                    rater__ratings__campaign=campaign,
                    rater__ratings__status=RatingStatus.DONE,
                    rater__ratings__kind=RatingKind.NORMAL,
                    rater__ratings__counted=True,
                ),
            ),
        )
    )
    rows = []
    for m in memberships:
        consensus = agreement.per_rater.get(m.rater_id, {})
        rho, n = consensus.get("rho"), consensus.get("n")
        rows.append(
            RaterRow(
                membership=m,
                pseudonym=rater_pseudonym(campaign=campaign, rater_id=m.rater_id),
                answered=m.answered,
                counted=m.counted,
                consensus_rho=rho if isinstance(rho, float) else None,
                consensus_n=n if isinstance(n, int) else 0,
                completion_code_valid=(
                    completion_code_for(campaign=campaign, membership=m) is not None
                    if m.crowd_id
                    else None
                ),
            )
        )
    return rows


def campaign_weights(*, campaign: Campaign) -> QuerySet[Weight]:
    """Every weight of the campaign with its reference and item, in reference order."""
    return (
        Weight.objects.filter(campaign=campaign)
        .select_related("reference__item")
        .order_by("reference_id")
    )


def weight_values(*, campaign: Campaign) -> list[float]:
    weights = Weight.objects.filter(campaign=campaign, weight__isnull=False)
    return [w for w in weights.values_list("weight", flat=True) if w is not None]


def widest_disagreement(*, campaign: Campaign, limit: int = WIDEST_SHOWN) -> QuerySet[Weight]:
    """The references whose ratings spread most (highest SD), among those rated twice or more."""
    return (
        Weight.objects.filter(campaign=campaign, n__gte=2, sd__isnull=False)
        .select_related("reference__item")
        .order_by("-sd", "reference_id")[:limit]
    )


def _systems(row: dict) -> str:
    names = [row["slot__system_a__name"], row["slot__system_b__name"]]
    return " vs ".join(name for name in names if name)


def flagged_units(*, campaign: Campaign, limit: int = FLAGGED_SHOWN) -> list[dict[str, object]]:
    """Units raters flagged (a reference's text, or the systems of an output or a pair), with
    the flag and how many times, most flagged first."""
    flagged = (
        Rating.objects.filter(campaign=campaign, status=RatingStatus.FLAGGED)
        .values(
            "slot_id",
            "slot__item__external_id",
            "slot__reference__text",
            "slot__system_a__name",
            "slot__system_b__name",
            "flag",
        )
        .annotate(times=Count("pk"))
        .order_by("-times", "slot_id")
    )[:limit]
    return [
        {
            "item_external_id": row["slot__item__external_id"],
            "text": row["slot__reference__text"]
            or " vs ".join(
                filter(None, [row["slot__system_a__name"], row["slot__system_b__name"]])
            ),
            "flag": row["flag"],
            "times": row["times"],
        }
        for row in flagged
    ]
