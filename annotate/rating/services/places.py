"""A slot's places taken (`active`): one per live lease or counted normal rating. Every move of
the count goes through here, as a single UPDATE with F() so that concurrent moves add up."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import F

from annotate.rating.models import Rating, RatingKind, Slot


def slot_places_move(*, slot_ids: Iterable[int], by: int) -> None:
    """Take (`by` > 0) or give back (`by` < 0) places in each of these slots."""
    Slot.objects.filter(pk__in=list(slot_ids)).update(active=F("active") + by)


def rating_place_give_back(*, rating: Rating) -> None:
    """The rating's place goes back to its slot's pool; a control never held one."""
    if rating.kind == RatingKind.NORMAL:
        slot_places_move(slot_ids=[rating.slot_id], by=-1)
