"""Simulated time for the demo's raters: people take seconds per rating, a loop takes none.

Quality control rightly fails a rater whose median answer takes under two seconds, and weights
order scores by when they were given. So while the demo's simulated raters work, every call to
`django.utils.timezone.now` (the one clock the services read) answers from this clock, which the
simulation moves forward by a rater's thinking time; everything else runs as it would live.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.utils import timezone


class DemoClock:
    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=seconds)


@contextmanager
def demo_clock(start: datetime) -> Iterator[DemoClock]:
    """Services read `clock` instead of the wall clock inside the block."""
    clock = DemoClock(start)
    real = timezone.now
    timezone.now = clock.now
    try:
        yield clock
    finally:
        timezone.now = real
