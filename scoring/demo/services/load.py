"""`load_demo`: the demo's users and dataset, then its story, all or nothing."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from annotate.datasets.models import Dataset
from annotate.datasets.services.demo import DEMO_SLUG, demo_load
from scoring.demo.services.clock import demo_clock
from scoring.demo.services.story import story_build, story_exists, story_start


@transaction.atomic
def demo_load_all() -> tuple[list[tuple[str, str, str]], bool]:
    """The demo logins, and whether the story was built now (False: it was there already;
    running this again changes nothing)."""
    logins = demo_load()
    if story_exists():
        return logins, False
    owner = get_user_model().objects.get(username="ada")
    dataset = Dataset.objects.get(slug=DEMO_SLUG)
    with demo_clock(story_start()) as clock:
        story_build(owner=owner, dataset=dataset, clock=clock)
    return logins, True
