"""Reads of campaigns: who may see or rate them, and progress."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Count, F, IntegerField, Q, QuerySet, Sum
from django.db.models.functions import Least

from annotate.datasets.models import Dataset
from annotate.rating.models import Campaign, CampaignRater, Rating, RatingKind, RatingStatus, Slot
from annotate.rating.weights_math import values_by_reference
from core.errors import NotFound

# A rater's answers that use up their share: a skip or a flag is an answer too.
FINISHED = (RatingStatus.DONE, RatingStatus.SKIPPED, RatingStatus.FLAGGED)


def campaign_can_manage(*, user: User | AnonymousUser, campaign: Campaign) -> bool:
    return user.is_authenticated and (user.is_staff or campaign.owner_id == user.pk)


def campaign_get_managed(*, user: User | AnonymousUser, campaign_id: int) -> Campaign:
    """The campaign if the user owns it (or is staff); others get a 404, not a hint."""
    campaign = Campaign.objects.select_related("dataset", "split").filter(pk=campaign_id).first()
    if campaign is None or not campaign_can_manage(user=user, campaign=campaign):
        raise NotFound("No such campaign.")
    return campaign


def campaign_get_for_rater(*, user: User | AnonymousUser, campaign_id: int) -> Campaign:
    """The campaign if the user has joined it as a rater."""
    if not user.is_authenticated:
        raise NotFound("No such campaign.")
    membership = (
        CampaignRater.objects.select_related("campaign__dataset")
        .filter(campaign_id=campaign_id, rater=user)
        .first()
    )
    if membership is None:
        raise NotFound("No such campaign.")
    return membership.campaign


def campaign_get_by_token(*, token: str) -> Campaign:
    """The campaign of a link /r/<token>/, whoever opens it."""
    campaign = Campaign.objects.filter(token=token).first()
    if campaign is None:
        # The wording of Django's get_object_or_404, which the API answered before.
        raise NotFound("No Campaign matches the given query.")
    return campaign


def campaign_by_id(*, campaign_id: int) -> Campaign | None:
    """The campaign of that id, whoever runs it (for management commands)."""
    return Campaign.objects.filter(pk=campaign_id).first()


def campaign_member(*, campaign_id: int, rater_id: int) -> CampaignRater | None:
    """The rater's membership of the campaign, with both; None when either is gone."""
    members = CampaignRater.objects.select_related("campaign", "rater")
    return members.filter(campaign_id=campaign_id, rater_id=rater_id).first()


def campaign_of_dataset(*, dataset: Dataset, campaign_id: int) -> Campaign | None:
    return Campaign.objects.filter(pk=campaign_id, dataset=dataset).first()


def campaigns_of_dataset(*, dataset: Dataset, subject: str = "") -> QuerySet[Campaign]:
    """The dataset's campaigns (only those on `subject`, references or outputs, if given)."""
    campaigns = Campaign.objects.filter(dataset=dataset)
    return campaigns.filter(subject=subject) if subject else campaigns


def campaigns_managed(*, user: User) -> QuerySet[Campaign]:
    campaigns = Campaign.objects.select_related("dataset")
    return campaigns if user.is_staff else campaigns.filter(owner=user)


def campaigns_joined(*, user: User) -> QuerySet[Campaign]:
    return Campaign.objects.filter(raters__rater=user).select_related("dataset")


def campaigns_of_user(*, user: User) -> QuerySet[Campaign]:
    """The campaigns the user runs or rates in, with what a list of them shows."""
    either = campaigns_managed(user=user) | campaigns_joined(user=user)
    return either.distinct().select_related("dataset", "split").prefetch_related("systems")


def campaign_membership(*, campaign: Campaign, rater: User) -> CampaignRater:
    """The rater's membership of a campaign they joined (see campaign_get_for_rater)."""
    return CampaignRater.objects.get(campaign=campaign, rater=rater)


def campaign_is_joined(*, campaign: Campaign, rater: User) -> bool:
    return CampaignRater.objects.filter(campaign=campaign, rater=rater).exists()


def rater_owns_rating(*, rater: User, rating_id: int) -> bool:
    return Rating.objects.filter(pk=rating_id, rater=rater).exists()


@dataclass(frozen=True)
class RaterProgress:
    done: int
    quota: int | None
    campaign_done: int
    campaign_total: int


def rater_finished_count(*, campaign: Campaign, rater: User) -> int:
    return Rating.objects.filter(campaign=campaign, rater=rater, status__in=FINISHED).count()


def rater_progress(*, campaign: Campaign, rater: User) -> RaterProgress:
    done = rater_finished_count(campaign=campaign, rater=rater)
    membership = CampaignRater.objects.filter(campaign=campaign, rater=rater).first()
    quota = campaign.ratings_per_rater if membership and membership.crowd_id else None
    overall = campaign_progress(campaign=campaign)
    # A budget ends the campaign before every unit has its ratings (an adaptive one spends it
    # where it matters): the rater's counter counts towards what will be collected.
    total = min(overall.total, campaign.rating_budget) if campaign.rating_budget else overall.total
    return RaterProgress(done, quota or None, overall.done, total)


@dataclass(frozen=True)
class CampaignProgress:
    done: int  # counted ratings towards the wanted ones
    leased: int
    total: int  # ratings wanted in all
    units: int  # references, outputs or pairs to rate
    complete_units: int
    raters: int

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0


def counted_ratings(*, campaign: Campaign):
    """The ratings that make weights and results: normal, done, and not excluded by quality
    control."""
    return Rating.objects.filter(
        campaign=campaign, kind=RatingKind.NORMAL, status=RatingStatus.DONE, counted=True
    )


def in_rating_order(ratings):
    """Ratings in the order they were given: a bootstrap interval depends on the order of the
    scores, so every reader of a reference's scores uses this one."""
    return ratings.order_by("started_at", "pk")


def counted_rating_rows(*, campaign: Campaign) -> list[tuple[int, int, int]]:
    """(reference id, rater id, score) of the counted ratings of a campaign on references, in
    rating order: what weights and their z-variant are computed from."""
    return list(
        in_rating_order(counted_ratings(campaign=campaign)).values_list(
            "slot__reference_id", "rater_id", "score"
        )
    )


def campaign_rating_values(*, campaign: Campaign, variant: str) -> dict[int, list[float]]:
    """Per reference, the numbers whose mean is its weight's mean rating: its counted scores
    ("raw") or their per-rater z-rescaled values ("z"), in rating order."""
    return campaign_rating_pools(campaign=campaign, variant=variant)[0]


def campaign_rating_pools(
    *, campaign: Campaign, variant: str
) -> tuple[dict[int, list[float]], dict[int, list[int]]]:
    """`campaign_rating_values`, and beside each value who gave it: the rater's number in the
    order of the raters' first counted ratings (1, 2, …; the release's pseudonyms r001, r002, …
    follow the same order), never a user id. The rater model measures how much raters differ
    in their own offsets from them."""
    rows = counted_rating_rows(campaign=campaign)
    raw, z_values = values_by_reference(rows, campaign.scale_min, campaign.scale_max)
    numbers: dict[int, int] = {}
    raters: dict[int, list[int]] = defaultdict(list)
    for reference_id, rater_id, _ in rows:
        raters[reference_id].append(numbers.setdefault(rater_id, len(numbers) + 1))
    if variant == "z":
        return dict(z_values), dict(raters)
    values = {ref: [float(score) for score in scores] for ref, scores in raw.items()}
    return values, dict(raters)


def campaign_progress(*, campaign: Campaign) -> CampaignProgress:
    """Counted ratings towards each slot's wanted number, summed in the database: the rater's
    page asks at every item, and a campaign can have a slot per reference of a large dataset."""
    counted = Q(
        ratings__kind=RatingKind.NORMAL, ratings__status=RatingStatus.DONE, ratings__counted=True
    )
    slots = (
        Slot.objects.filter(campaign=campaign)
        .annotate(n=Count("ratings", filter=counted))
        .aggregate(
            total=Sum("wanted"),
            units=Count("pk"),
            done=Sum(Least("n", "wanted", output_field=IntegerField())),
            complete=Count("pk", filter=Q(n__gte=F("wanted"))),
        )
    )
    return CampaignProgress(
        done=slots["done"] or 0,
        leased=Rating.objects.filter(
            campaign=campaign, status=RatingStatus.LEASED, kind=RatingKind.NORMAL
        ).count(),
        total=slots["total"] or 0,
        units=slots["units"] or 0,
        complete_units=slots["complete"] or 0,
        raters=CampaignRater.objects.filter(campaign=campaign).count(),
    )
