"""Publishing a release: write its public files and manifest, then freeze it for good.

Each set of files (at publication, and again at each reveal) goes to a folder of its own named by
the manifest's checksum (`release_files_prefix`), written and checked before the row points to it:
readers see the old set or the new one, never a mix, and never another release's files.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotate.datasets.models import SplitName
from annotate.releases.models import Release, ReleaseItem, ReleaseRating, ReleaseStatus
from annotate.releases.selectors.content import content_checksum, release_content, sha256
from annotate.releases.services.files import MANIFEST, release_files, scorable_splits
from annotate.releases.services.unrated import release_unrated_resolve
from core.filesets import fileset_delete, fileset_staged
from core.paths import storage_join

FORMAT = "deltableu-release/1"


def release_meta(*, release: Release) -> dict[str, Any]:
    """release.json: everything the files say about the release besides its content."""
    published = release.published_at
    return {
        "format": FORMAT,
        "version": release.version,
        "weight_variant": release.weight_variant,
        "public_splits": sorted(release.public_splits),
        "include_ratings": release.include_ratings,
        "license": release.license,
        "citation": release.citation,
        "description": release.description,
        "published_at": published.isoformat() if published else None,
        "snapshot_checksum": release.snapshot_checksum,
        "build_info": release.build_info,
    }


def release_public_ratings(*, release: Release) -> list[tuple[str, str, int, str, int]] | None:
    if not release.include_ratings:
        return None
    ratings = (
        ReleaseRating.objects.filter(
            release=release, reference__item__split__in=release.public_splits
        )
        .order_by("reference__item__position", "reference__position", "rater", "score")
        .values_list(
            "reference__item__external_id",
            "reference__item__split",
            "reference__position",
            "rater",
            "score",
        )
    )
    return list(ratings)


def release_build_files(*, release: Release) -> dict[str, bytes]:
    return release_files(
        meta=release_meta(release=release),
        content=release_content(release=release, public_only=True),
        ratings=release_public_ratings(release=release),
    )


def release_stage_files(
    *, release: Release, files: dict[str, bytes]
) -> AbstractContextManager[list[str]]:
    """Record the files' manifest on `release` (unsaved) and write them to its new folder; the
    caller saves the release inside the block, and a failure there deletes the files again."""
    release.manifest = json.loads(files[MANIFEST])
    release.manifest_checksum = sha256(files[MANIFEST])
    return fileset_staged(prefix=release.storage_prefix, files=files)


def release_stored_names(*, release: Release) -> list[str]:
    """Storage names of the release's current files, its cached archive included."""
    if not release.manifest_checksum:
        return []
    names = [entry["name"] for entry in release.manifest["files"]] + [MANIFEST]
    cached = [release.archive_name] if release.archive_name else []
    return [storage_join(release.storage_prefix, name) for name in names] + cached


def _refuse_unscorable(meta: dict[str, Any], content: list[dict[str, Any]]) -> None:
    empty = [
        split
        for split, n in scorable_splits(meta, content).items()
        if n == 0 and any(item["split"] == split for item in content)
    ]
    if empty:
        raise ValidationError(
            f"No item of the {', '.join(empty)} split has a reference with a positive weight, "
            "so ΔBLEU could not score it. Finish rating, or keep that split hidden."
        )


def release_publish_name(release: Release) -> str:
    """What the owner types to confirm a publication."""
    return f"{release.dataset.slug}@{release.version}"


def release_publish_confirmed(
    *, release: Release, confirm: str, unrated: str = "", published_at=None
) -> Release:
    """Publish after the owner typed the release's name (slug@version): it is final."""
    expected = release_publish_name(release)
    if confirm.strip() != expected:
        raise ValidationError(
            {"confirm": f"Type the release's name ({expected}) to confirm: publishing is final."}
        )
    return release_publish(release=release, unrated=unrated, published_at=published_at)


@transaction.atomic
def release_publish(*, release: Release, unrated: str = "", published_at=None) -> Release:
    """Write the files, record the manifest and publish; the database then forbids changes.
    A draft frozen with unweighted references left undecided needs `unrated` here."""
    release = Release.objects.select_for_update().get(pk=release.pk)
    if release.status != ReleaseStatus.DRAFT:
        raise ValidationError("The release is already published.")
    if release_unrated_resolve(release=release, choice=unrated):
        release.snapshot_checksum = content_checksum(
            release_content(release=release, public_only=False)
        )
    release.published_at = published_at or timezone.now()
    content = release_content(release=release, public_only=True)
    _refuse_unscorable(release_meta(release=release), content)
    release_publish_files(release=release, files=release_build_files(release=release))
    return release


def release_publish_files(*, release: Release, files: dict[str, bytes]) -> None:
    """Write `files` as the release's public files and mark it published (from then on the
    database refuses changes); its archive is built once the transaction commits."""
    with release_stage_files(release=release, files=files):
        release.status = ReleaseStatus.PUBLISHED
        release.save()
    release_archive_on_commit(release)


def release_reveal_split(*, release: Release, split: str) -> Release:
    """Publish a hidden split's references: the snapshot stays, the public files grow."""
    if split not in SplitName.values:
        raise ValidationError({"split": f"Unknown split {split!r}."})
    with transaction.atomic():
        release = Release.objects.select_for_update().get(pk=release.pk)
        if release.status != ReleaseStatus.PUBLISHED:
            raise ValidationError("Only a published release has hidden splits to reveal.")
        if split in release.public_splits:
            raise ValidationError({"split": f"The {split} split is already public."})
        if not ReleaseItem.objects.filter(release=release, split=split).exists():
            raise ValidationError({"split": f"This release has no {split} split."})
        old = release_stored_names(release=release)
        release.public_splits = sorted([*release.public_splits, split])
        # Held to the rule of publishing: a split ΔBLEU cannot score stays hidden.
        _refuse_unscorable(
            release_meta(release=release), release_content(release=release, public_only=True)
        )
        files = release_build_files(release=release)
        with release_stage_files(release=release, files=files):
            release.archive_name = release.archive_sha256 = ""
            release.save(
                update_fields=[
                    "public_splits",
                    "manifest",
                    "manifest_checksum",
                    "archive_name",
                    "archive_sha256",
                ]
            )
        # The old set goes only once nobody can be pointed to it any more.
        transaction.on_commit(lambda: fileset_delete(old))
        release_archive_on_commit(release)
    return release


def release_archive_on_commit(release: Release) -> None:
    from annotate.releases.services.archive import release_archive_request

    transaction.on_commit(lambda: release_archive_request(release=release))
