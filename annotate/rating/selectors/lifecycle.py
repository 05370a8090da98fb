"""Reads behind a campaign's lifecycle: who can still rate, whether the campaign is complete, how
far a slot may be topped up, and why a rater has nothing left.

The rules, in one place:

- A rater is *able* unless quality control excluded them or, as a crowd participant, they have
  given their share (`ratings_per_rater`).
- A slot takes at most one normal rating per rater (a rating, a skip or a flag), so what it can
  still get is its places taken (counted ratings and live leases) plus the able raters who have
  not answered it yet: its *capacity*. A disagreement top-up never raises `wanted` past it.
- A campaign is *complete* when it has slots, no normal lease is live, and every slot short of
  its wanted counted ratings has been answered by every able rater (which includes "every slot
  has its ratings"). A short slot with nobody able to rate it keeps the campaign open only while
  there is no able rater at all: it waits for raters. A campaign with a rating budget is also
  complete once its counted ratings reach the budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import Count, Exists, F, Min, OuterRef, Q
from django.utils import timezone

from annotate.datasets.selectors.deletion import Blocker, deletion_blockers
from annotate.rating.models import (
    Campaign,
    CampaignRater,
    CampaignStatus,
    QCStatus,
    Rating,
    RatingKind,
    RatingStatus,
    Slot,
)
from annotate.rating.selectors.campaigns import FINISHED


def able_rater_ids(*, campaign: Campaign) -> list[int]:
    """Raters of the campaign who may still be given work."""
    members = (
        CampaignRater.objects.filter(campaign=campaign)
        .exclude(qc_status=QCStatus.FAILED)
        .annotate(
            finished=Count(
                "rater__ratings",
                filter=Q(rater__ratings__campaign=campaign, rater__ratings__status__in=FINISHED),
            )
        )
        .values_list("rater_id", "crowd_id", "finished")
    )
    quota = campaign.ratings_per_rater
    return [
        rater_id
        for rater_id, crowd_id, finished in members
        if not (crowd_id and quota and finished >= quota)
    ]


def _live_leases(campaign: Campaign, now: datetime):
    return Rating.objects.filter(
        campaign=campaign,
        kind=RatingKind.NORMAL,
        status=RatingStatus.LEASED,
        lease_expires_at__gt=now,
    )


def _short_slots_open_to(campaign: Campaign, raters: list[int]):
    """Slots below their wanted counted ratings that one of `raters` has not answered."""
    counted = Q(
        ratings__kind=RatingKind.NORMAL, ratings__status=RatingStatus.DONE, ratings__counted=True
    )
    answered = Q(
        ratings__kind=RatingKind.NORMAL,
        ratings__status__in=FINISHED,
        ratings__rater_id__in=raters,
    )
    return (
        Slot.objects.filter(campaign=campaign)
        .annotate(n=Count("ratings", filter=counted), answered=Count("ratings", filter=answered))
        .filter(n__lt=F("wanted"), answered__lt=len(raters))
    )


def _short_slots(campaign: Campaign):
    counted = Q(
        ratings__kind=RatingKind.NORMAL, ratings__status=RatingStatus.DONE, ratings__counted=True
    )
    return (
        Slot.objects.filter(campaign=campaign)
        .annotate(n=Count("ratings", filter=counted))
        .filter(n__lt=F("wanted"))
    )


def _unanswered_slots(campaign: Campaign):
    answered = Rating.objects.filter(slot=OuterRef("pk"), kind=RatingKind.NORMAL)
    return Slot.objects.filter(campaign=campaign, wanted__gt=0).exclude(Exists(answered))


def budget_left(*, campaign: Campaign, now: datetime | None = None) -> int | None:
    """Ratings the campaign's budget still allows (counted ones and live leases use it up), or
    None without a budget. Controls are quality control, not the budget's."""
    if not campaign.rating_budget:
        return None
    now = now or timezone.now()
    used = (
        Rating.objects.filter(campaign=campaign, kind=RatingKind.NORMAL)
        .filter(
            Q(status=RatingStatus.DONE, counted=True)
            | Q(status=RatingStatus.LEASED, lease_expires_at__gt=now)
        )
        .count()
    )
    return max(campaign.rating_budget - used, 0)


def _complete(campaign: Campaign, now: datetime, *, busy: bool) -> bool:
    """The rule, once whether a normal lease is live (`busy`) is known."""
    if busy:
        return False
    if budget_left(campaign=campaign, now=now) == 0:
        return True  # (a spent budget means ratings, so slots)
    # A slot nobody has answered yet is short and open to every able rater (or, with none,
    # waits for one): open. The common case while a campaign runs, settled by one indexed
    # probe instead of counting every slot's ratings at each rating that lands.
    if _unanswered_slots(campaign).exists():
        return False
    raters = able_rater_ids(campaign=campaign)
    # Short slots wait for raters; with raters able, only those one of them can still answer
    # (a subset of the short ones) keep the campaign open.
    short = _short_slots_open_to(campaign, raters) if raters else _short_slots(campaign)
    if short.exists():
        return False
    # Asked last, as it only matters when the answer would be "complete" (the rare case):
    # nothing to rate yet is not complete, since references may still come.
    return Slot.objects.filter(campaign=campaign).exists()


def campaign_is_complete(*, campaign: Campaign, now: datetime | None = None) -> bool:
    """Whether no slot can take another rating (the rule in this module's docstring), or the
    rating budget is spent."""
    now = now or timezone.now()
    return _complete(campaign, now, busy=_live_leases(campaign, now).exists())


def campaign_status_read(
    *, campaign: Campaign, now: datetime | None = None
) -> tuple[str, bool | None]:
    """The campaign's stored status and, when it is open or complete, whether it is complete now
    (None for a draft or a closed one: the rule does not apply). The status and the live-lease
    probe are one query, which settles it while raters are at work; the probes after it run only
    when it does not (asking them all in one query cost more under load than the one it saved:
    PostgreSQL evaluated the unanswered-slot scan even when a live lease had settled it)."""
    now = now or timezone.now()
    status, busy = (
        Campaign.objects.filter(pk=campaign.pk)
        .annotate(busy=Exists(_live_leases(campaign, now)))
        .values_list("status", "busy")
        .get()
    )
    if status not in (CampaignStatus.OPEN, CampaignStatus.COMPLETE):
        return status, None
    return status, _complete(campaign, now, busy=busy)


def slot_capacity(*, campaign: Campaign, slot: Slot, able: list[int] | None = None) -> int:
    """Ratings the slot can hold at most with the raters who joined: its places taken plus the
    able raters (`able`, if the caller has them) who have not answered it."""
    answered = set(
        Rating.objects.filter(slot=slot, kind=RatingKind.NORMAL).values_list("rater_id", flat=True)
    )
    able = able_rater_ids(campaign=campaign) if able is None else able
    return slot.active + len(set(able) - answered)


class Reason:
    DRAFT = "draft"
    CLOSED = "closed"
    COMPLETE = "complete"
    BUDGET = "budget_spent"
    EXCLUDED = "excluded"
    SHARE_DONE = "share_done"
    WAITING = "waiting_for_leases"
    RATED_ALL = "rated_all"


REASONS = tuple(value for name, value in vars(Reason).items() if name.isupper())


@dataclass(frozen=True)
class NothingLeft:
    """Why a rater has no item, and when trying again could help (None: it would not)."""

    reason: str
    message: str
    retry_at: datetime | None = None


def _status_reason(campaign: Campaign) -> NothingLeft | None:
    if campaign.status == CampaignStatus.DRAFT:
        return NothingLeft(Reason.DRAFT, "This campaign has not been opened yet.")
    if campaign.status == CampaignStatus.CLOSED:
        return NothingLeft(
            Reason.CLOSED, "The campaign's owner has closed it: no more items are handed out."
        )
    return None


def _member_reason(campaign: Campaign, membership: CampaignRater) -> NothingLeft | None:
    if membership.qc_status == QCStatus.FAILED:
        return NothingLeft(
            Reason.EXCLUDED, "Your answers did not pass the quality checks, so no more items."
        )
    if membership.rater_id not in able_rater_ids(campaign=campaign):
        return NothingLeft(Reason.SHARE_DONE, "You have given your share of ratings. Thank you!")
    return None


def rater_nothing_left(*, campaign: Campaign, rater: User) -> NothingLeft | None:
    """Why the rater gets no item now, or None if an item is waiting for them after all."""
    found = _status_reason(campaign)
    membership = CampaignRater.objects.filter(campaign=campaign, rater=rater).first()
    if found is None and membership is not None:
        found = _member_reason(campaign, membership)
    if found is not None:
        return found
    now = timezone.now()
    if budget_left(campaign=campaign) == 0:
        return NothingLeft(
            Reason.BUDGET,
            "The campaign's rating budget is spent: its owner chose how many ratings to collect.",
        )
    if campaign.status == CampaignStatus.COMPLETE or campaign_is_complete(campaign=campaign):
        return NothingLeft(
            Reason.COMPLETE,
            "The campaign is complete: every item has its ratings, or nobody can add more.",
        )
    held = _live_leases(campaign, now).exclude(rater=rater)
    open_to_me = _short_slots_open_to(campaign, [rater.pk]).values("pk")
    first_expiry = held.filter(slot_id__in=open_to_me).aggregate(m=Min("lease_expires_at"))["m"]
    if first_expiry is not None:
        return NothingLeft(
            Reason.WAITING,
            "Other raters hold the items you could still rate. Those whose leases run out come "
            "back to you: try again after the time below.",
            retry_at=first_expiry,
        )
    if _short_slots_open_to(campaign, [rater.pk]).filter(active__lt=F("wanted")).exists():
        return None  # asked away from the rating page: there is work for them
    return NothingLeft(
        Reason.RATED_ALL,
        "You have rated everything you can here; the rest waits for other raters.",
    )


@dataclass(frozen=True)
class Footprint:
    """What deleting a campaign takes with it."""

    slots: int
    ratings: int
    raters: int
    weights: int
    releases: list[str]
    blockers: list[Blocker]  # what keeps the campaign: it cannot be deleted while they stand


def campaign_deletion_refusal(*, campaign: Campaign, blockers: list[Blocker]) -> str:
    kept = "; ".join(str(blocker) for blocker in blockers)
    return f"The campaign {campaign.name} cannot be deleted: {kept}."


def campaign_footprint(*, campaign: Campaign) -> Footprint:
    return Footprint(
        slots=Slot.objects.filter(campaign=campaign).count(),
        ratings=Rating.objects.filter(campaign=campaign)
        .exclude(status=RatingStatus.LEASED)
        .count(),
        raters=CampaignRater.objects.filter(campaign=campaign).count(),
        weights=campaign.weights.count(),
        releases=[str(release) for release in campaign.releases.all()],
        blockers=deletion_blockers(root=campaign),
    )
