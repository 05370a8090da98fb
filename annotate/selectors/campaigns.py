"""Reads of campaigns: who may see or rate them, and progress."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, QuerySet, Sum
from django.http import Http404

from annotate.models.rating import (
    Campaign,
    CampaignRater,
    Rating,
    RatingKind,
    RatingStatus,
    ReferenceSlot,
)
from annotate.services.assignment import FINISHED


def campaign_can_manage(*, user: User | AnonymousUser, campaign: Campaign) -> bool:
    return user.is_authenticated and (user.is_staff or campaign.owner_id == user.pk)


def campaign_get_managed(*, user: User | AnonymousUser, campaign_id: int) -> Campaign:
    """The campaign if the user owns it (or is staff); others get a 404, not a hint."""
    campaign = Campaign.objects.select_related("dataset", "split").filter(pk=campaign_id).first()
    if campaign is None or not campaign_can_manage(user=user, campaign=campaign):
        raise Http404("No such campaign.")
    return campaign


def campaign_get_for_rater(*, user: User | AnonymousUser, campaign_id: int) -> Campaign:
    """The campaign if the user has joined it as a rater."""
    if not user.is_authenticated:
        raise Http404("No such campaign.")
    membership = (
        CampaignRater.objects.select_related("campaign__dataset")
        .filter(campaign_id=campaign_id, rater=user)
        .first()
    )
    if membership is None:
        raise Http404("No such campaign.")
    return membership.campaign


def campaigns_managed(*, user: User) -> QuerySet[Campaign]:
    campaigns = Campaign.objects.select_related("dataset")
    return campaigns if user.is_staff else campaigns.filter(owner=user)


def campaigns_joined(*, user: User) -> QuerySet[Campaign]:
    return Campaign.objects.filter(raters__rater=user).select_related("dataset")


@dataclass(frozen=True)
class RaterProgress:
    done: int
    quota: int | None
    campaign_done: int
    campaign_total: int


def rater_progress(*, campaign: Campaign, rater: User) -> RaterProgress:
    done = Rating.objects.filter(campaign=campaign, rater=rater, status__in=FINISHED).count()
    membership = CampaignRater.objects.filter(campaign=campaign, rater=rater).first()
    quota = campaign.ratings_per_rater if membership and membership.crowd_id else None
    overall = campaign_progress(campaign=campaign)
    return RaterProgress(done, quota or None, overall.done, overall.total)


@dataclass(frozen=True)
class CampaignProgress:
    done: int  # counted ratings towards the wanted ones
    leased: int
    total: int  # ratings wanted in all
    references: int
    complete_references: int
    raters: int

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0


def campaign_progress(*, campaign: Campaign) -> CampaignProgress:
    slots = ReferenceSlot.objects.filter(campaign=campaign).aggregate(
        total=Sum("wanted"), references=Count("pk")
    )
    counted = Rating.objects.filter(
        campaign=campaign, kind=RatingKind.NORMAL, status=RatingStatus.DONE, counted=True
    )
    per_reference = counted.values("reference_id").annotate(n=Count("pk"))
    wanted = dict(
        ReferenceSlot.objects.filter(campaign=campaign).values_list("reference_id", "wanted")
    )
    counts = [(row["n"], wanted.get(row["reference_id"], 0)) for row in per_reference]
    return CampaignProgress(
        done=sum(min(n, want) for n, want in counts),
        leased=Rating.objects.filter(
            campaign=campaign, status=RatingStatus.LEASED, kind=RatingKind.NORMAL
        ).count(),
        total=slots["total"] or 0,
        references=slots["references"] or 0,
        complete_references=sum(1 for n, want in counts if n >= want),
        raters=CampaignRater.objects.filter(campaign=campaign).count(),
    )
