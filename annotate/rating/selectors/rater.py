"""What a rater sees of their own work: the campaigns they joined, with their progress and what
comes next, and whether their last answer can still be undone.

Undo rule: the rater's most recent answer can be taken back while a lease of the campaign would
still hold it (`lease_minutes` after the answer), if it is a score that still counts, and the
campaign still takes answers. A done rating keeps its place in its slot, so turning it back into
a lease never gives a unit more raters than it wants; later decisions (weights, quality control)
are recomputed from the ratings and follow the undo. Skips and flags gave their place back to the
pool at once, and a rating that quality control set aside no longer holds one: neither can become
a lease again without taking a place someone else may have.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from annotate.rating.models import Campaign, CampaignRater, QCStatus, Rating, RatingStatus
from annotate.rating.selectors.assignment import slots_open_to
from annotate.rating.selectors.campaigns import FINISHED
from annotate.rating.selectors.completion import completion_code_shown
from core.queries import count_by


def campaign_takes_answers(campaign: Campaign) -> bool:
    """Raters get new items and may change their answers (the campaign's own rule)."""
    return campaign.takes_ratings


def rating_current(*, campaign: Campaign, rater: User) -> Rating | None:
    """The rater's live lease: what their rating page shows. Only a POST hands out a new one
    (services.assignment.rating_next), so that a preview or a prefetch of the page leases
    nothing."""
    return (
        Rating.objects.filter(
            campaign=campaign,
            rater=rater,
            status=RatingStatus.LEASED,
            lease_expires_at__gt=timezone.now(),
        )
        .select_related("slot__item", "slot__reference")
        .first()
    )


def last_answer(*, campaign: Campaign, rater: User) -> Rating | None:
    """The rater's most recent answer in the campaign: a score, a skip or a flag."""
    return (
        Rating.objects.filter(campaign=campaign, rater=rater, status__in=FINISHED)
        .select_related("campaign", "slot")
        .order_by("-finished_at", "-pk")
        .first()
    )


def undo_refusal(*, rating: Rating, now: datetime | None = None) -> str | None:
    """Why this answer cannot be undone now (see the module's rule), or None if it can."""
    campaign = rating.campaign
    now = now or timezone.now()
    if rating.status != RatingStatus.DONE:
        return "A skip or a flag cannot be undone, only a score."
    if not rating.counted:
        return "Quality control has set your answers aside: they cannot be changed."
    if not campaign_takes_answers(campaign):
        return "This campaign no longer takes answers."
    window = timedelta(minutes=campaign.lease_minutes)
    if rating.finished_at is None or rating.finished_at + window <= now:
        return f"An answer can be undone for {campaign.lease_minutes} minutes only."
    return None


def rating_undoable(*, campaign: Campaign, rater: User) -> Rating | None:
    """The rater's last answer if they may undo it now, else None."""
    rating = last_answer(campaign=campaign, rater=rater)
    return rating if rating is not None and undo_refusal(rating=rating) is None else None


@dataclass(frozen=True)
class JoinedCampaign:
    """One campaign on the rater's "my campaigns" page."""

    campaign: Campaign
    membership: CampaignRater
    answered: int  # the rater's scores, skips and flags
    quota: int | None  # a crowd participant's share
    open_now: int  # items the rater could be given now (current lease in, a crowd share's rest)
    completion_code: str | None

    @property
    def can_rate(self) -> bool:
        return campaign_takes_answers(self.campaign) and self.open_now > 0

    @property
    def next_step(self) -> str:
        """continue | done | closed: what the page offers."""
        if self.can_rate:
            return "continue"
        return "done" if self.answered or campaign_takes_answers(self.campaign) else "closed"


def _open_now(rater: User, campaign_ids: list[int]) -> dict[int, int]:
    """Per campaign: units with a free place that the rater has not rated, plus their leases."""
    free = slots_open_to(rater=rater, campaign_ids=campaign_ids)
    leased = Rating.objects.filter(
        campaign_id__in=campaign_ids,
        rater=rater,
        status=RatingStatus.LEASED,
        lease_expires_at__gt=timezone.now(),
    )
    counts = count_by(free, "campaign_id")
    for campaign_id, n in count_by(leased, "campaign_id").items():
        counts[campaign_id] = counts.get(campaign_id, 0) + n
    return counts


def _joined(rater: User, memberships: list[CampaignRater]) -> list[JoinedCampaign]:
    ids = [m.campaign_id for m in memberships]
    answered = count_by(
        Rating.objects.filter(campaign_id__in=ids, rater=rater, status__in=FINISHED), "campaign_id"
    )
    open_now = _open_now(rater, ids)
    rows = []
    for m in memberships:
        campaign = m.campaign
        quota = campaign.ratings_per_rater if m.crowd_id and campaign.ratings_per_rater else None
        done, available = answered.get(campaign.pk, 0), open_now.get(campaign.pk, 0)
        if m.qc_status == QCStatus.FAILED:  # excluded: no more items (services/assignment.py)
            available = 0
        if quota is not None:
            available = max(0, min(available, quota - done))
        row = JoinedCampaign(campaign, m, done, quota, available, None)
        if not row.can_rate:
            code = completion_code_shown(campaign=campaign, membership=m, answered=row.answered)
            row = replace(row, completion_code=code)
        rows.append(row)
    return rows


def campaigns_of_rater(*, rater: User) -> list[JoinedCampaign]:
    """Every campaign the user joined, newest membership first, in a fixed number of queries."""
    memberships = (
        CampaignRater.objects.filter(rater=rater)
        .select_related("campaign__dataset")
        .order_by("-joined_at", "-pk")
    )
    return _joined(rater, list(memberships))


def campaign_of_rater(*, membership: CampaignRater) -> JoinedCampaign:
    """One campaign the user joined, as "my campaigns" shows it (the done page's data)."""
    return _joined(membership.rater, [membership])[0]
