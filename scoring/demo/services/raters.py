"""Simulated raters: they take work through the rating services (join, next, submit) exactly as
a person's browser does, and answer from a seeded model of a careful but human rater.

A rater's score is the unit's true quality, plus the rater's own leaning, plus noise; now and
then a rater sees it quite differently (two points off), which is the disagreement that makes
the campaign ask others for extra ratings. Degraded controls get a low score and a repeat gets
the score its original got, as an attentive rater would give them. Every draw is seeded by the
rater's name and the unit's text, so the story is the same on every machine and database.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from django.contrib.auth.models import User

from annotate.rating.models import Campaign, Rating, RatingKind
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_join
from annotate.rating.services.ratings import rating_submit
from scoring.demo.services.clock import DemoClock

# How often a rater sees a unit two points away from the others: enough for a few top-ups.
DISAGREE_RATE = 0.08


@dataclass(frozen=True)
class Persona:
    """A simulated rater: `leaning` is added to every score (a harsh rater's is negative)."""

    user: User
    leaning: float
    seconds: tuple[float, float]  # thinking time per rating, drawn between these


def _rng(*parts: object) -> np.random.Generator:
    key = "\x1f".join(str(part) for part in parts)
    return np.random.default_rng(zlib.crc32(key.encode()))


def persona_score(persona: Persona, unit: str, truth: float, lo: int, hi: int) -> int:
    """The persona's score of a unit of this true quality (the same every time it is asked)."""
    rng = _rng(persona.user.username, unit)
    value = truth + persona.leaning + rng.normal(0, 0.45)
    if rng.random() < DISAGREE_RATE:
        value += 2 if truth < (lo + hi) / 2 else -2
    return int(min(hi, max(lo, round(value))))


# The unit a rating is about and its true quality (for controls: of the slot it was built on).
Judge = Callable[[Rating], tuple[str, float]]


def _answer(persona: Persona, rating: Rating, judge: Judge, campaign: Campaign) -> int:
    lo, hi = campaign.scale_min, campaign.scale_max
    if rating.kind == RatingKind.BAD_REFERENCE:
        return lo + int(_rng(persona.user.username, rating.control_text).random() < 0.3)
    unit, truth = judge(rating)
    return persona_score(persona, unit, truth, lo, hi)


def campaign_simulate(
    *, campaign: Campaign, personas: Sequence[Persona], judge: Judge, clock: DemoClock
) -> int:
    """The personas join and rate, taking turns, until none is given more; returns the ratings."""
    for persona in personas:
        campaign_join(campaign=campaign, rater=persona.user)
    given, active = 0, list(personas)
    while active:
        for persona in list(active):
            rating = rating_next(campaign=campaign, rater=persona.user)
            if rating is None:
                active.remove(persona)
                continue
            low, high = persona.seconds
            clock.advance(float(_rng(persona.user.username, "pace", given).uniform(low, high)))
            score = _answer(persona, rating, judge, campaign)
            rating_submit(rating_id=rating.pk, rater=persona.user, score=score)
            given += 1
            clock.advance(1.0)
    return given
