"""Handing out work: the next unit for a rater, leases, and reclaiming abandoned leases.

The next unit (a reference, an output or a pair of outputs) is the one with the fewest ratings
(counted plus leased) that this rater has not rated. Its slot row is locked with SELECT … FOR
UPDATE SKIP LOCKED, so two raters asking at once take different slots instead of queueing on the
same row or both taking its last place. Pairwise units show system A left or right at random.
"""

from __future__ import annotations

import random
import secrets
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotate.rating.models import Campaign, CampaignRater, QCStatus, Rating, RatingStatus, Slot
from annotate.rating.selectors.assignment import slot_value_expression, slots_open_to
from annotate.rating.selectors.campaigns import rater_finished_count
from annotate.rating.selectors.lifecycle import budget_left
from annotate.rating.selectors.rater import rating_current
from annotate.rating.services.controls import (
    closing_control_create,
    control_create,
    control_kind_due,
)
from annotate.rating.services.places import rating_place_give_back, slot_places_move
from annotate.rating.services.status import campaign_status_refresh


class NotAMember(Exception):
    """The user has not joined this campaign."""


def leases_reclaim(*, campaign_id: int | None = None, now: datetime | None = None) -> int:
    """Delete expired leases and give their places back to the pool."""
    now = now or timezone.now()
    expired = Rating.objects.filter(status=RatingStatus.LEASED, lease_expires_at__lte=now)
    if campaign_id is not None:
        expired = expired.filter(campaign_id=campaign_id)
    reclaimed = 0
    # Its own transaction when called alone (the periodic sweep); inside the caller's when
    # handing out work, without a savepoint: a failure here fails the caller's request anyway.
    with transaction.atomic(savepoint=False):
        for rating in expired.select_for_update(skip_locked=True, of=("self",)).order_by("pk"):
            lease_drop(rating=rating)
            reclaimed += 1
    return reclaimed


def lease_drop(*, rating: Rating) -> None:
    """Delete a lease (locked by the caller) and give its place back to the pool."""
    rating_place_give_back(rating=rating)
    rating.delete()


def _in_order(campaign: Campaign, slots: QuerySet[Slot]) -> QuerySet[Slot]:
    """Fewest ratings first; an adaptive campaign, except for its uniform share, first takes
    the slot whose next rating is worth most to the leaderboards (adaptive_math.py), its value
    following the slot's count at once."""
    if campaign.adaptive and random.random() >= campaign.uniform_share:
        value = slot_value_expression(campaign.adaptive_a)
        return slots.annotate(value=value).order_by("-value", "active", "pk")
    return slots.order_by("active", "pk")


def _normal_lease(campaign: Campaign, rater: User, now: datetime) -> Rating | None:
    open_slots = slots_open_to(rater=rater, campaign_ids=[campaign.pk]).select_for_update(
        skip_locked=True, of=("self",)
    )
    slot = _in_order(campaign, open_slots).first()
    if slot is None:
        return None
    slot_places_move(slot_ids=[slot.pk], by=1)
    return Rating.objects.create(
        campaign=campaign,
        slot=slot,
        rater=rater,
        started_at=now,
        # The side of system A is drawn per rating so that position cannot favour a system.
        a_on_left=slot.system_b_id is None or secrets.randbelow(2) == 0,
        lease_expires_at=now + timedelta(minutes=campaign.lease_minutes),
    )


def _work_lease(
    campaign: Campaign, rater: User, finished: int, quota: int, now: datetime
) -> Rating | None:
    """A control when one is due and can be built, else the next unit to rate, else None."""
    kind = control_kind_due(campaign=campaign, rater=rater, finished=finished, quota=quota)
    if kind is not None:
        control = control_create(
            campaign=campaign, rater=rater, kind=kind, finished=finished, now=now
        )
        if control is not None:
            return control
    return _normal_lease(campaign, rater, now)


@transaction.atomic
def rating_next(*, campaign: Campaign, rater: User) -> Rating | None:
    """The rater's current lease, or a new one; None when there is nothing left for them."""
    # One request at a time per rater: a double click must not lease two items.
    membership = (
        CampaignRater.objects.select_for_update(of=("self",))
        .filter(campaign=campaign, rater=rater)
        .order_by("pk")
        .first()
    )
    if membership is None:
        raise NotAMember
    now = timezone.now()
    if membership.qc_status == QCStatus.FAILED:
        # Excluded by quality control: no more items, and a lease held goes back to the pool
        # (an answer to it would count until the next check set it aside).
        leases = Rating.objects.filter(campaign=campaign, rater=rater, status=RatingStatus.LEASED)
        for held in leases.select_for_update(of=("self",)).order_by("pk"):
            lease_drop(rating=held)
        return None
    current = rating_current(campaign=campaign, rater=rater)
    if current is not None:
        return current
    if not campaign.takes_ratings:
        return None
    leases_reclaim(campaign_id=campaign.pk, now=now)
    finished = rater_finished_count(campaign=campaign, rater=rater)
    quota = campaign.ratings_per_rater if membership.crowd_id else 0
    # A crowd participant's share done (the completion page follows), or the budget spent:
    # the rater's work is over.
    over = bool(quota and finished >= quota) or budget_left(campaign=campaign, now=now) == 0
    lease = None if over else _work_lease(campaign, rater, finished, quota, now)
    if lease is None:
        # Quality control may still wait for degraded texts before its verdict (and a crowd
        # participant's code); else that may have been the last rating anyone could give.
        lease = closing_control_create(campaign=campaign, rater=rater, finished=finished, now=now)
    if lease is None:
        campaign_status_refresh(campaign=campaign)
    return lease
