"""Revealing a hidden split: an explicit, confirmed and logged act of the dataset's owner.

A dataset's test split and a release's unpublished splits keep their references from everyone but
the owner (see the `visibility` modules of datasets and releases). Revealing one is final for
every leaderboard that relies on it, so the owner confirms by typing the dataset's slug, and
every reveal leaves a `SplitReveal`.
"""

from __future__ import annotations

import logging

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from annotate.datasets.models import Dataset, Split, SplitName
from annotate.datasets.visibility import dataset_hidden_splits
from annotate.releases.models import Release, ReleaseStatus, SplitReveal
from annotate.releases.services import release_reveal_split
from annotate.releases.visibility import release_hidden_splits

log = logging.getLogger(__name__)


def _check(*, dataset: Dataset, split: str, confirm: str, hidden: frozenset[str]) -> None:
    if split not in SplitName.values:
        raise ValidationError({"split": f"Unknown split {split!r}."})
    if split not in hidden:
        raise ValidationError({"split": f"The {split} split is not hidden."})
    if confirm != dataset.slug:
        raise ValidationError(
            {"confirm": f"Type the dataset's slug ({dataset.slug}) to confirm the reveal."}
        )


def _logged(*, dataset: Dataset, split: str, by: User, release: Release | None = None) -> None:
    SplitReveal.objects.create(dataset=dataset, release=release, split=split, revealed_by=by)
    where = f"{dataset.slug}@{release.version}" if release else dataset.slug
    log.warning("split revealed: %s/%s by %s", where, split, by.username)


def dataset_reveal_split(*, dataset: Dataset, split: str, by: User, confirm: str) -> Dataset:
    """Show a hidden split's references on the live dataset to everyone who sees the dataset.

    Refused while a published release keeps that split hidden: its leaderboards rely on the live
    copy staying hidden too, so the release is revealed first."""
    with transaction.atomic():
        dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
        _check(
            dataset=dataset,
            split=split,
            confirm=confirm,
            hidden=dataset_hidden_splits(dataset=dataset),
        )
        if not Split.objects.filter(dataset=dataset, name=split).exists():
            raise ValidationError({"split": f"The dataset has no {split} split."})
        keeping = [
            release.version
            for release in Release.objects.filter(dataset=dataset, status=ReleaseStatus.PUBLISHED)
            if split in release_hidden_splits(release=release)
        ]
        if keeping:
            raise ValidationError(
                {
                    "split": f"Release {', '.join(keeping)} keeps the {split} split hidden for its "
                    "leaderboards: reveal it there first."
                }
            )
        dataset.revealed_splits = sorted({*dataset.revealed_splits, split})
        dataset.save(update_fields=["revealed_splits", "updated_at"])
        _logged(dataset=dataset, split=split, by=by)
    return dataset


def release_reveal(*, release: Release, split: str, by: User, confirm: str) -> Release:
    """Publish a release's hidden split (its files grow) after the owner's confirmation."""
    _check(
        dataset=release.dataset,
        split=split,
        confirm=confirm,
        hidden=release_hidden_splits(release=release),
    )
    with transaction.atomic():
        release = release_reveal_split(release=release, split=split)
        _logged(dataset=release.dataset, split=split, by=by, release=release)
    return release
