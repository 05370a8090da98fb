"""Helpers for the release tests: a rated dataset, a frozen and a published release."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import count
from pathlib import Path

import pytest
from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from annotate.datasets.models import Reference, Visibility
from annotate.rating.models import Rating, RatingStatus, Weight
from annotate.releases.services import release_freeze, release_publish

# Weights given to the references in order (small.jsonl has 6): c1 (dev) 3, c2 (test) 2, c3 1.
WEIGHTS = [0.5, -0.25, 1.0, 0.75, -0.5, 0.25]
Z_WEIGHTS = [0.4, -0.3, 0.9, 0.7, -0.6, 0.2]


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@contextmanager
def module_world(django_db_blocker, media: Path) -> Iterator[None]:
    """Rows and files a whole test module shares, built once: the rows in a transaction open
    for the module (each test runs in a savepoint inside it, as usual) and rolled back after
    it; the files in `media`, which each test gets a copy of (see `media_copy`)."""
    with django_db_blocker.unblock(), override_settings(MEDIA_ROOT=media), transaction.atomic():
        yield
        transaction.set_rollback(True)


def media_copy(settings, tmp_path: Path, media: Path) -> None:
    """The module world's files, copied into this test's own storage folder."""
    shutil.copytree(media, tmp_path / "media", dirs_exist_ok=True)
    settings.MEDIA_ROOT = tmp_path / "media"


def shared_world(build: Callable) -> tuple[Callable, Callable]:
    """The two fixtures of a test module whose tests share one world, to bind to module names
    (``shared, world = shared_world(build)``; the second may have any name):

    - `shared`, module-scoped: (what `build(owner, make_dataset, make_campaign, make_rater)`
      returns, the world's media folder), built once for the module;
    - the second, autouse: what `build` returned, the world's files copied into the test's own
      storage folder first.
    """

    @pytest.fixture(scope="module", name="shared")
    def built(django_db_setup, django_db_blocker, tmp_path_factory):
        from annotate.accounts.models import Role
        from tests.conftest import user_of

        media = tmp_path_factory.mktemp("world-media")
        with module_world(django_db_blocker, media):
            owner = user_of("owner", Role.RESEARCHER)
            yield build(owner, *world_makers(owner)), media

    @pytest.fixture(autouse=True)
    def world(shared, settings, tmp_path):
        rows, media = shared
        media_copy(settings, tmp_path, media)
        return rows

    return built, world


def world_makers(owner) -> tuple[Callable, Callable, Callable]:
    """make_dataset, make_campaign and make_rater for a module world (its raters are named apart
    from the ones a test makes)."""
    from annotate.rating.services.campaigns import campaign_create, campaign_join
    from tests.conftest import dataset_of, user_of

    numbers = count(1)

    def make_dataset(**fields):
        return dataset_of(owner, **fields)

    def make_campaign(*, dataset, **fields):
        fields.setdefault("name", "First round")
        fields.setdefault("control_rate", 0.0)
        return campaign_create(owner=owner, dataset=dataset, **fields)

    def make_rater(campaign=None):
        user = user_of(f"world-rater{next(numbers)}", "rater")
        if campaign is not None:
            campaign_join(campaign=campaign, rater=user)
        return user

    return make_dataset, make_campaign, make_rater


def rated(make_dataset, make_campaign, make_rater, *, slug="chat", visibility="public"):
    dataset = make_dataset(slug=slug, visibility=visibility)
    campaign = make_campaign(dataset=dataset)
    raters = [make_rater(campaign) for _ in range(2)]
    refs = Reference.objects.filter(item__split__dataset=dataset).order_by(
        "item__position", "position"
    )
    for ref, w, z in zip(refs, WEIGHTS, Z_WEIGHTS, strict=True):
        settle(campaign, ref, raters, weight=w, z_weight=z)
    return dataset, campaign


def settle(
    campaign, reference, raters, *, weight, z_weight=None, sd=0.5, ci_halfwidth=0.1, first_score=3
):
    """The reference as a finished campaign leaves it: one done rating per rater (scores
    ``first_score``, ``first_score + 1``, …) and the weight aggregated from them."""
    now = timezone.now()
    slot = campaign.slots.get(reference=reference)
    Weight.objects.create(
        campaign=campaign,
        reference=reference,
        n=len(raters),
        mean=3 + 2 * weight,
        sd=sd,
        weight=weight,
        z_weight=weight if z_weight is None else z_weight,
        ci_low=weight - ci_halfwidth,
        ci_high=min(1, weight + ci_halfwidth),
    )
    Rating.objects.bulk_create(
        Rating(
            campaign=campaign,
            slot=slot,
            rater=rater,
            status=RatingStatus.DONE,
            score=first_score + k,
            started_at=now,
            finished_at=now,
        )
        for k, rater in enumerate(raters)
    )


def freeze(dataset, campaign, owner, **fields):
    fields.setdefault("version", "1.0.0")
    fields.setdefault("citation", "@misc{chat, title={Chat}, year={2026}}")
    return release_freeze(dataset=dataset, campaign=campaign, created_by=owner, **fields)


def published(dataset, campaign, owner, **fields):
    return release_publish(release=freeze(dataset, campaign, owner, **fields))


__all__ = [
    "Visibility",
    "archive_bytes",
    "archive_run",
    "freeze",
    "published",
    "rated",
    "settle",
]


def archive_run(release, owner):
    """Build the published release's zip as its run would, in this process; the ended Run."""
    from core.runs.engine import run_create
    from tests.runs_kit import execute

    run = run_create(
        kind="release-archive",
        owner=owner,
        scope=f"release:{release.pk}",
        params={"release_id": release.pk, "version": release.version},
        send=False,
    )
    return execute(run)


def archive_bytes(release, owner) -> bytes:
    """Build the published release's zip as its run would, and read it back from storage."""
    from django.core.files.storage import default_storage

    run = archive_run(release, owner)
    assert run.state == "succeeded", run.reason
    release.refresh_from_db()
    return default_storage.open(release.archive_name).read()
