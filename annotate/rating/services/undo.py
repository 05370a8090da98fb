"""Undo of a rater's last answer: it becomes their current item again, to be answered anew.

When an answer may be undone is the rule of `annotate.rating.selectors.rater` (the lease
duration after the answer, a score that still counts, a campaign taking answers).
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotate.rating.models import CampaignRater, Rating, RatingKind, RatingStatus
from annotate.rating.selectors.rater import last_answer, undo_refusal
from annotate.rating.services.assignment import lease_drop
from annotate.rating.services.ratings import rating_checks_follow
from annotate.rating.services.status import campaign_status_refresh
from annotate.rating.services.weights import weight_recompute

NOT_YOURS = "This answer is not yours, or it is gone."


def _drop_other_leases(rating: Rating) -> None:
    """The item leased after the undone answer goes back to the pool: one current item only."""
    leases = (
        Rating.objects.select_for_update(of=("self",))
        .filter(
            campaign_id=rating.campaign_id, rater_id=rating.rater_id, status=RatingStatus.LEASED
        )
        .exclude(pk=rating.pk)
        .order_by("pk")
    )
    for lease in leases:
        lease_drop(rating=lease)


@transaction.atomic
def rating_undo(*, rating_id: int, rater: User) -> Rating:
    """Take back the rater's last answer, `rating_id`, and lease it to them again."""
    rating = Rating.objects.select_related("campaign").filter(pk=rating_id, rater=rater).first()
    if rating is None:
        raise ValidationError(NOT_YOURS)
    # The membership row serialises this rater's requests, as rating_next does: no new lease
    # can be handed out between the check below and the undo.
    CampaignRater.objects.select_for_update(of=("self",)).filter(
        campaign_id=rating.campaign_id, rater=rater
    ).first()
    latest = last_answer(campaign=rating.campaign, rater=rater)
    if latest is None or latest.pk != rating.pk:
        raise ValidationError("Only your most recent answer can be undone.")
    rating = (
        Rating.objects.select_for_update(of=("self",))
        .select_related("campaign", "slot")
        .get(pk=rating.pk)
    )
    refusal = undo_refusal(rating=rating)
    if refusal:
        raise ValidationError(refusal)
    _drop_other_leases(rating)
    now = timezone.now()
    # Timed afresh: quality control's seconds per rating measure the new answer alone.
    rating.status, rating.score, rating.preference = RatingStatus.LEASED, None, None
    rating.started_at, rating.finished_at = now, None
    rating.lease_expires_at = now + timedelta(minutes=rating.campaign.lease_minutes)
    rating.save(
        update_fields=[
            "status",
            "score",
            "preference",
            "started_at",
            "finished_at",
            "lease_expires_at",
        ]
    )
    reference_id = rating.slot.reference_id
    if rating.kind == RatingKind.NORMAL and reference_id is not None:
        # A disagreement top-up the answer caused stays: the extra ratings are harmless.
        weight_recompute(campaign=rating.campaign, reference_id=reference_id)
    rating_checks_follow(rating=rating)
    # Undoing the answer that completed the campaign reopens it: the lease is live again.
    campaign_status_refresh(campaign=rating.campaign)
    return rating
