"""Importing a release archive made by another installation, checked byte for byte.

The import rebuilds the release's rows from items.jsonl (and ratings.tsv), writes the files
again from those rows and refuses the archive unless every file comes out identical: an
imported release is the same release, with the same checksums.

It always creates a dataset of its own (a slug that is taken is refused, whoever has it), so
its files go to a folder no other release uses; they are written and checked before the release
row is published, and a refusal at any step leaves no row and no file behind.
"""

from __future__ import annotations

import io
from typing import IO, Any

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from annotate.accounts.selectors import user_is_researcher
from annotate.datasets.models import Dataset, Visibility
from annotate.releases.models import (
    Release,
    ReleaseItem,
    ReleaseRating,
    ReleaseReference,
    WeightVariant,
)
from annotate.releases.selectors.content import REFERENCE_FIELDS, sha256
from annotate.releases.services.archive_reading import archive_read
from annotate.releases.services.import_parsing import (
    release_items_checked,
    release_meta_checked,
    release_ratings_checked,
)
from annotate.releases.services.publish import release_build_files, release_publish_files
from core.bulk import INSERT_BATCH, analyze_after_commit
from core.inserts import insert_checked

Ratings = list[tuple[str, str, int, str, int]]


def _new_dataset(owner: User, slug: str | None, info: dict[str, Any]) -> Dataset:
    slug = slug or info["slug"]
    taken = {"slug": f"A dataset {slug} exists already: choose another slug for the import."}
    if Dataset.objects.filter(slug=slug).exists():
        raise ValidationError(taken)
    fields = ("name", "language", "description", "scale_min", "scale_max")
    dataset = Dataset(
        owner=owner, slug=slug, visibility=Visibility.PRIVATE, **{f: info[f] for f in fields}
    )
    try:
        insert_checked(dataset)
    except ValidationError as exc:
        if "slug" in exc.message_dict:  # another import took the slug since the check above
            raise ValidationError(taken) from None
        raise
    return dataset


def _new_release(dataset: Dataset, owner: User, meta: dict[str, Any]) -> Release:
    fields = [
        *("version", "weight_variant", "public_splits", "include_ratings", "license"),
        *("citation", "description", "build_info", "snapshot_checksum", "published_at"),
    ]
    release = Release(
        dataset=dataset, created_by=owner, imported=True, **{f: meta[f] for f in fields}
    )
    insert_checked(release)
    return release


def _create_rows(release: Release, content: list[dict[str, Any]], ratings: Ratings | None):
    items = ReleaseItem.objects.bulk_create(
        (
            ReleaseItem(
                release=release,
                split=entry["split"],
                external_id=entry["id"],
                context=entry["context"],
                message=entry["message"],
                position=position,
            )
            for position, entry in enumerate(content)
        ),
        batch_size=INSERT_BATCH,
    )
    refs = {
        (entry["id"], entry["split"], k): ReleaseReference(
            release=release, item=item, position=k, **{f: ref[f] for f in REFERENCE_FIELDS}
        )
        for item, entry in zip(items, content, strict=True)
        for k, ref in enumerate(entry["refs"] or [])
    }
    missing = {(i, s, p) for i, s, p, _, _ in ratings or []} - set(refs)
    if missing:
        raise ValidationError(f"ratings.tsv rates {len(missing)} references items.jsonl lacks.")
    if release.weight_variant == WeightVariant.RAW:
        # The raw weights' means are these scores: a leaderboard can resample them. The z
        # variant's values need the campaign's other ratings, which an archive does not carry.
        numbers: dict[str, int] = {}  # pseudonyms as numbers, in order of first rating
        for i, s, p, rater, score in ratings or []:
            refs[(i, s, p)].rating_values.append(float(score))
            refs[(i, s, p)].rating_raters.append(numbers.setdefault(rater, len(numbers) + 1))
    ReleaseReference.objects.bulk_create(refs.values(), batch_size=INSERT_BATCH)
    ReleaseRating.objects.bulk_create(
        (
            ReleaseRating(release=release, reference=refs[(i, s, p)], rater=rater, score=score)
            for i, s, p, rater, score in ratings or []
        ),
        batch_size=INSERT_BATCH,
    )
    analyze_after_commit(ReleaseItem, ReleaseReference, ReleaseRating, rows=len(refs))


def _check_identical(rebuilt: dict[str, bytes], digests: dict[str, str]) -> None:
    names = set(rebuilt) | set(digests)
    different = sorted(n for n in names if n not in rebuilt or sha256(rebuilt[n]) != digests.get(n))
    if different:
        raise ValidationError(f"The import would not reproduce {', '.join(different)} exactly.")


def release_importer_check(*, user: User | AnonymousUser) -> None:
    """An import makes a dataset of the importer's, and only researchers (and staff) own
    datasets: PermissionDenied otherwise, whether the archive came by the API or a command."""
    if not user_is_researcher(user):
        raise PermissionDenied("Only researchers can import releases.")


def release_import_archive(
    *, source: IO[bytes] | bytes, owner: User, slug: str | None = None
) -> Release:
    """A published copy of the archive's release in a new dataset of `owner`'s (`slug`, or
    the original's), or ValidationError (LimitExceeded for a bomb) and nothing written."""
    release_importer_check(user=owner)  # before a byte of the archive is read
    with archive_read(io.BytesIO(source) if isinstance(source, bytes) else source) as files:
        meta = release_meta_checked(files)
        content = release_items_checked(files)
        ratings = release_ratings_checked(files) if meta["include_ratings"] else None
        digests = dict(files.digests)
    with transaction.atomic():
        dataset = _new_dataset(owner, slug, meta["build_info"]["dataset"])
        release = _new_release(dataset, owner, meta)
        try:
            with transaction.atomic():
                _create_rows(release, content, ratings)
        except IntegrityError:
            raise ValidationError("items.jsonl holds an item id twice in one split.") from None
        rebuilt = release_build_files(release=release)
        _check_identical(rebuilt, digests)
        release_publish_files(release=release, files=rebuilt)
    return release
