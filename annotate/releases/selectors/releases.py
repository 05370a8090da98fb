"""Reads of releases, with who-sees-what in one place.

A release is visible with its dataset (`dataset_get_visible`: a private dataset is a 404 to
others); a draft only to those who may edit the dataset. References of hidden splits reach only
editors: every read here that returns references takes `user` and filters them.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch, QuerySet

from annotate.datasets.models import Dataset
from annotate.datasets.selectors import dataset_can_edit, dataset_get_visible
from annotate.releases.models import Release, ReleaseItem, ReleaseReference, ReleaseStatus
from annotate.releases.visibility import release_splits_hidden_from
from core.errors import NotFound


def release_list_visible(*, user: User | AnonymousUser, dataset: Dataset) -> QuerySet[Release]:
    releases = Release.objects.filter(dataset=dataset).select_related("dataset", "created_by")
    if not dataset_can_edit(user=user, dataset=dataset):
        releases = releases.filter(status=ReleaseStatus.PUBLISHED)
    return releases.order_by("-created_at")


def release_get_visible(*, user: User | AnonymousUser, slug: str, version: str) -> Release:
    dataset = dataset_get_visible(user=user, slug=slug)
    try:
        return release_list_visible(user=user, dataset=dataset).get(version=version)
    except Release.DoesNotExist:
        raise NotFound("No such release.") from None


def release_get_editable(*, user: User | AnonymousUser, slug: str, version: str) -> Release:
    """The release if the user may change it (its dataset's owner or staff), else a 403."""
    release = release_get_visible(user=user, slug=slug, version=version)
    if not dataset_can_edit(user=user, dataset=release.dataset):
        raise PermissionDenied("Only the dataset's owner can change its releases.")
    return release


def release_find_visible(
    *, user: User | AnonymousUser, dataset: Dataset, version: str
) -> Release | None:
    return release_list_visible(user=user, dataset=dataset).filter(version=version).first()


def release_list_others(*, user: User | AnonymousUser, release: Release) -> QuerySet[Release]:
    """The other releases of the dataset that the user may see."""
    return release_list_visible(user=user, dataset=release.dataset).exclude(pk=release.pk)


def release_can_see_hidden(*, user: User | AnonymousUser, release: Release) -> bool:
    """Whether every split of the release is visible to the user (see `visibility`)."""
    return not release_splits_hidden_from(user=user, release=release)


def release_items(*, release: Release, split: str | None = None) -> QuerySet[ReleaseItem]:
    """Snapshot items in position order with their references (for leaderboards and pages).
    Callers showing references to a user check `release_can_see_hidden` for hidden splits."""
    items = ReleaseItem.objects.filter(release=release)
    if split:
        items = items.filter(split=split)
    return items.prefetch_related(
        Prefetch("references", queryset=ReleaseReference.objects.order_by("position"))
    ).order_by("position")


def release_manifest_files(*, release: Release) -> list[dict[str, Any]]:
    return list(release.manifest.get("files", [])) if release.is_published else []


def release_file_sha256(*, release: Release, name: str) -> str:
    """The SHA-256 of one of the release's public files ("" for the manifest itself, whose
    checksum is the release's)."""
    if name == "manifest.json":
        return release.manifest_checksum
    entries = release_manifest_files(release=release)
    return next((entry["sha256"] for entry in entries if entry["name"] == name), "")


def release_file_names(*, release: Release) -> set[str]:
    names = {entry["name"] for entry in release_manifest_files(release=release)}
    return names | {"manifest.json"} if names else set()
