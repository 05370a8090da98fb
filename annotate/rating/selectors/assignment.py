"""Reads for assignment: the units open to a rater, and for the dashboard's assignment section
the budget and where the next ratings go."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db.models import Exists, ExpressionWrapper, F, FloatField, OuterRef, QuerySet, Value
from django.db.models.functions import Cast

from annotate.rating.models import Campaign, Rating, RatingKind, Slot
from annotate.rating.selectors.lifecycle import budget_left

NEXT_SHOWN = 10


@dataclass(frozen=True)
class NextUp:
    slot: Slot
    value: float


@dataclass
class AssignmentOverview:
    campaign: Campaign
    budget_left: int | None
    next_up: list[NextUp] = field(default_factory=list)

    @property
    def budget_used(self) -> int | None:
        if self.budget_left is None:
            return None
        return self.campaign.rating_budget - self.budget_left


def slot_value_expression(a: float) -> ExpressionWrapper:
    """The value of a slot's next rating, sensitivity / ((a + n)(a + n + 1)) with n its places
    taken (adaptive_math.rating_value, in SQL: it follows each rating at once)."""
    a_value = Value(a, output_field=FloatField())
    n = Cast("active", FloatField())
    return ExpressionWrapper(
        F("sensitivity") / ((a_value + n) * (a_value + n + 1.0)), output_field=FloatField()
    )


def slots_open_to(*, rater: User, campaign_ids: list[int]) -> QuerySet[Slot]:
    """The campaigns' units with a free place that the rater has not rated yet."""
    rated = Rating.objects.filter(slot_id=OuterRef("pk"), rater=rater, kind=RatingKind.NORMAL)
    return Slot.objects.filter(campaign_id__in=campaign_ids, active__lt=F("wanted")).filter(
        ~Exists(rated)
    )


def assignment_overview(*, campaign: Campaign, limit: int = NEXT_SHOWN) -> AssignmentOverview:
    """The budget, and for an adaptive campaign the open slots its next ratings go to."""
    overview = AssignmentOverview(campaign, budget_left(campaign=campaign))
    if campaign.adaptive:
        slots = (
            Slot.objects.filter(campaign=campaign, active__lt=F("wanted"), sensitivity__gt=0)
            .select_related("item", "reference")
            .annotate(value=slot_value_expression(campaign.adaptive_a))
            .order_by("-value", "active", "pk")[:limit]
        )
        overview.next_up = [NextUp(slot, slot.value) for slot in slots]
    return overview
