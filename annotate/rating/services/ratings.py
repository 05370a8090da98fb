"""Writes of ratings: submit a score, skip, flag. A reference's weight follows in the same
transaction; quality control and the campaign's z-weights follow in debounced tasks."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotate.rating.models import (
    CampaignRater,
    Flag,
    QCStatus,
    Rating,
    RatingKind,
    RatingStatus,
)
from annotate.rating.services.adaptive import campaign_priorities_follow
from annotate.rating.services.places import rating_place_give_back
from annotate.rating.services.status import campaign_status_refresh
from annotate.rating.services.topups import slot_top_up
from annotate.rating.services.weights import weight_recompute
from core.dispatch import dispatch_debounced


def _locked_lease(rating_id: int, rater: User) -> Rating:
    rating = (
        # Only the rating row: a lock on the joined campaign row would make every rater of the
        # campaign queue behind every other (inserts take KEY SHARE locks on it).
        Rating.objects.select_for_update(of=("self",))
        .select_related("campaign", "slot")
        .filter(pk=rating_id, rater=rater)
        .first()
    )
    if rating is None:
        raise ValidationError("This item is not yours, or its lease ran out and was reclaimed.")
    return rating


# z-normalised weights depend on every rating of the campaign, so a task brings the campaign's
# weights up to date; ratings landing within this many seconds share one run.
WEIGHTS_DEBOUNCE_SECONDS = 3


# Quality control reads all of a rater's answers; a quick rater's answers share one check.
QC_DEBOUNCE_SECONDS = 2


# The tasks these debounced checks send (registered under these names by this app's tasks.py).
WEIGHTS_TASK = "annotate.rating.tasks.campaign_weights"
RATER_QC_TASK = "annotate.rating.tasks.rater_qc"


def _rater_excluded(rating: Rating) -> bool:
    """Whether quality control has excluded the rater. Their membership row is locked, so a
    check judging them now ends first and its verdict is the one read."""
    status = (
        CampaignRater.objects.select_for_update(of=("self",))
        .filter(campaign_id=rating.campaign_id, rater_id=rating.rater_id)
        .values_list("qc_status", flat=True)
        .first()
    )
    return status == QCStatus.FAILED


def rating_checks_follow(*, rating: Rating) -> None:
    """After the transaction commits, queue the campaign's z-weights, the rater's quality
    control and an adaptive campaign's priorities (debounced)."""
    rates_references = rating.campaign.rates_references

    def send() -> None:
        campaign, rater = rating.campaign_id, rating.rater_id
        if rates_references:
            dispatch_debounced(
                f"campaign-weights-{campaign}", WEIGHTS_DEBOUNCE_SECONDS, WEIGHTS_TASK, campaign
            )
        dispatch_debounced(
            f"rater-qc-{campaign}-{rater}", QC_DEBOUNCE_SECONDS, RATER_QC_TASK, campaign, rater
        )

    transaction.on_commit(send)
    campaign_priorities_follow(campaign=rating.campaign)


def preference_for_a(score: int, a_on_left: bool) -> float:
    """Pairwise: 1 = left much better … 5 = right much better → A's preference on −2 … +2."""
    left = 3.0 - score
    return left if a_on_left else -left


@transaction.atomic
def rating_submit(*, rating_id: int, rater: User, score: int) -> Rating:
    """Record a score for the rater's leased item. Sending the same score again is harmless."""
    rating = _locked_lease(rating_id, rater)
    campaign = rating.campaign
    if rating.status == RatingStatus.DONE and rating.score == score:
        return rating  # a retried request: already recorded
    if rating.status != RatingStatus.LEASED:
        raise ValidationError("This item was already answered.")
    if not isinstance(score, int) or not campaign.scale_min <= score <= campaign.scale_max:
        raise ValidationError(
            {"score": f"Give a whole number from {campaign.scale_min} to {campaign.scale_max}."}
        )
    rating.score = score
    if campaign.pairwise:
        rating.preference = preference_for_a(score, rating.a_on_left)
    rating.status = RatingStatus.DONE
    rating.finished_at = timezone.now()
    rating.lease_expires_at = None
    normal = rating.kind == RatingKind.NORMAL
    # An item leased before quality control excluded the rater: the answer is kept, set aside
    # as the check sets aside their others, and its place goes back to the pool.
    rating.counted = not (normal and _rater_excluded(rating))
    fields = ["score", "preference", "status", "finished_at", "lease_expires_at", "counted"]
    rating.save(update_fields=fields)
    if not rating.counted:
        rating_place_give_back(rating=rating)
    reference_id = rating.slot.reference_id
    if normal and rating.counted and reference_id is not None:
        weight = weight_recompute(campaign=campaign, reference_id=reference_id)
        slot_top_up(campaign=campaign, slot=rating.slot, weight=weight)
    campaign_status_refresh(campaign=campaign)
    rating_checks_follow(rating=rating)
    return rating


@transaction.atomic
def rating_pass(*, rating_id: int, rater: User, flag: str = "") -> Rating:
    """Skip the item, or flag it (offensive, not in the language, broken); it goes back to the
    pool for other raters and this rater will not see it again."""
    rating = _locked_lease(rating_id, rater)
    if rating.status != RatingStatus.LEASED:
        raise ValidationError("This item was already answered.")
    if flag and flag not in Flag.values:
        raise ValidationError({"flag": f"Use one of {', '.join(Flag.values)}."})
    rating.status = RatingStatus.FLAGGED if flag else RatingStatus.SKIPPED
    rating.flag = flag
    rating.finished_at = timezone.now()
    rating.lease_expires_at = None
    rating.save(update_fields=["status", "flag", "finished_at", "lease_expires_at"])
    rating_place_give_back(rating=rating)
    # A skip can be the last answer anyone could give to a slot.
    campaign_status_refresh(campaign=rating.campaign)
    return rating
