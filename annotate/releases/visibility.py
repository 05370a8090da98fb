"""Which of a release's splits keep their references hidden, and from whom: a release publishes
only its public splits; the owner (and staff) see everything."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

from annotate.datasets.visibility import ALL_SPLITS, sees_everything
from annotate.releases.models import Release


def release_hidden_splits(*, release: Release) -> frozenset[str]:
    """Splits of a release whose references are not published."""
    return ALL_SPLITS - set(release.public_splits or [])


def release_splits_hidden_from(*, user: User | AnonymousUser, release: Release) -> frozenset[str]:
    """The splits whose references this user may not see in a release."""
    if sees_everything(user=user, dataset=release.dataset):
        return frozenset()
    return release_hidden_splits(release=release)


def release_references_visible(*, user: User | AnonymousUser, release: Release, split: str) -> bool:
    return split not in release_splits_hidden_from(user=user, release=release)
