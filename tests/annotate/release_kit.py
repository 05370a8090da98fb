"""Helpers for the release tests: a rated dataset, a frozen and a published release."""

from __future__ import annotations

import pytest
from django.utils import timezone

from annotate.models import Rating, RatingStatus, Reference, Visibility, Weight
from annotate.services.releases import release_freeze, release_publish

# Weights given to the references in order (small.jsonl has 6): c1 (dev) 3, c2 (test) 2, c3 1.
WEIGHTS = [0.5, -0.25, 1.0, 0.75, -0.5, 0.25]
Z_WEIGHTS = [0.4, -0.3, 0.9, 0.7, -0.6, 0.2]


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def rated(make_dataset, make_campaign, make_rater, *, slug="chat", visibility="public"):
    dataset = make_dataset(slug=slug, visibility=visibility)
    campaign = make_campaign(dataset=dataset)
    raters = [make_rater(campaign) for _ in range(2)]
    refs = Reference.objects.filter(item__split__dataset=dataset).order_by(
        "item__position", "position"
    )
    for ref, w, z in zip(refs, WEIGHTS, Z_WEIGHTS, strict=True):
        Weight.objects.create(
            campaign=campaign,
            reference=ref,
            n=2,
            mean=3 + 2 * w,
            sd=0.5,
            weight=w,
            z_weight=z,
            ci_low=w - 0.1,
            ci_high=min(1, w + 0.1),
        )
        for k, rater in enumerate(raters):
            Rating.objects.create(
                campaign=campaign,
                reference=ref,
                rater=rater,
                status=RatingStatus.DONE,
                score=3 + k,
                started_at=timezone.now(),
                finished_at=timezone.now(),
            )
    return dataset, campaign


def freeze(dataset, campaign, owner, **fields):
    fields.setdefault("version", "1.0.0")
    fields.setdefault("citation", "@misc{chat, title={Chat}, year={2026}}")
    return release_freeze(dataset=dataset, campaign=campaign, created_by=owner, **fields)


def published(dataset, campaign, owner, **fields):
    return release_publish(release=freeze(dataset, campaign, owner, **fields))


__all__ = ["Visibility", "archive_bytes", "archive_run", "freeze", "published", "rated"]


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
