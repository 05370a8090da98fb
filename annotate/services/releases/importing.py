"""Importing a release archive made by another installation, checked byte for byte.

The import rebuilds the release's rows from items.jsonl (and ratings.tsv), writes the files
again from those rows and refuses the archive unless every file comes out identical: an
imported release is the same release, with the same checksums.
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime
from typing import IO, Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from annotate.models import (
    Dataset,
    Release,
    ReleaseItem,
    ReleaseRating,
    ReleaseReference,
    ReleaseStatus,
    Visibility,
)
from annotate.services.releases.content import REFERENCE_FIELDS, sha256
from annotate.services.releases.files import MANIFEST
from annotate.services.releases.publish import (
    FORMAT,
    release_build_files,
    release_store_files,
)
from core.tabular import restore

MAX_ARCHIVE_FILES = 50


def archive_read(source: IO[bytes] | bytes) -> dict[str, bytes]:
    """name → bytes of the files in an archive's single top folder, checked against the
    manifest."""
    data = source if isinstance(source, bytes) else source.read()
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ValidationError("The file is not a zip archive.") from None
    names = [n for n in archive.namelist() if not n.endswith("/")]
    if not names or len(names) > MAX_ARCHIVE_FILES or len({n.split("/")[0] for n in names}) != 1:
        raise ValidationError("The archive must hold one folder with the release's files.")
    files = {n.split("/", 1)[1]: archive.read(n) for n in names if "/" in n}
    if MANIFEST not in files:
        raise ValidationError("The archive has no manifest.json.")
    listed = {e["name"]: e["sha256"] for e in json.loads(files[MANIFEST])["files"]}
    if set(listed) != set(files) - {MANIFEST}:
        raise ValidationError("The archive's files do not match its manifest.")
    for name, digest in listed.items():
        if sha256(files[name]) != digest:
            raise ValidationError(f"{name} does not match its SHA-256 in the manifest.")
    return files


def _content(files: dict[str, bytes]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in files["items.jsonl"].decode().splitlines() if line]


def _ratings(files: dict[str, bytes]) -> list[tuple[str, str, int, str, int]]:
    rows = files["ratings.tsv"].decode().splitlines()[1:]
    parsed = []
    for row in rows:
        item_id, split, position, rater, score = (restore(c) for c in row.split("\t"))
        parsed.append((item_id, split, int(position), rater, int(score)))
    return parsed


def _dataset(owner: User, slug: str | None, info: dict[str, Any]) -> Dataset:
    slug = slug or info["slug"]
    existing = Dataset.objects.filter(slug=slug).first()
    if existing is not None:
        if existing.owner_id != owner.pk:
            raise ValidationError({"slug": f"Dataset {slug} belongs to someone else."})
        return existing
    fields = ("name", "language", "description", "scale_min", "scale_max")
    dataset = Dataset(
        owner=owner, slug=slug, visibility=Visibility.PRIVATE, **{f: info[f] for f in fields}
    )
    dataset.full_clean()
    dataset.save()
    return dataset


def _create_rows(release: Release, content: list[dict[str, Any]], ratings) -> None:
    refs: dict[tuple[str, str, int], ReleaseReference] = {}
    for position, entry in enumerate(content):
        item = ReleaseItem.objects.create(
            release=release,
            split=entry["split"],
            external_id=entry["id"],
            context=entry["context"],
            message=entry["message"],
            position=position,
        )
        for k, ref in enumerate(entry.get("refs") or []):
            refs[(entry["id"], entry["split"], k)] = ReleaseReference(
                release=release, item=item, position=k, **{f: ref[f] for f in REFERENCE_FIELDS}
            )
    ReleaseReference.objects.bulk_create(list(refs.values()))
    ReleaseRating.objects.bulk_create(
        ReleaseRating(release=release, reference=refs[(i, s, p)], rater=rater, score=score)
        for i, s, p, rater, score in ratings or []
    )


@transaction.atomic
def release_import_archive(
    *, source: IO[bytes] | bytes, owner: User, slug: str | None = None
) -> Release:
    files = archive_read(source)
    meta = json.loads(files["release.json"])
    if meta.get("format") != FORMAT:
        raise ValidationError(f"Unknown release format {meta.get('format')!r}.")
    dataset = _dataset(owner, slug, meta["build_info"]["dataset"])
    if Release.objects.filter(dataset=dataset, version=meta["version"]).exists():
        raise ValidationError({"version": f"{dataset.slug} already has {meta['version']}."})
    release = Release.objects.create(
        dataset=dataset,
        version=meta["version"],
        created_by=owner,
        weight_variant=meta["weight_variant"],
        public_splits=meta["public_splits"],
        include_ratings=meta["include_ratings"],
        license=meta["license"],
        citation=meta["citation"],
        description=meta["description"],
        build_info=meta["build_info"],
        snapshot_checksum=meta["snapshot_checksum"],
        published_at=datetime.fromisoformat(meta["published_at"]),
        imported=True,
    )
    ratings = _ratings(files) if meta["include_ratings"] else None
    _create_rows(release, _content(files), ratings)
    rebuilt = release_build_files(release=release)
    different = sorted(n for n in set(rebuilt) | set(files) if rebuilt.get(n) != files.get(n))
    if different:
        raise ValidationError(f"The import would not reproduce {', '.join(different)} exactly.")
    release_store_files(release=release, files=rebuilt)
    release.status = ReleaseStatus.PUBLISHED
    release.manifest = json.loads(rebuilt[MANIFEST])
    release.manifest_checksum = sha256(rebuilt[MANIFEST])
    release.save()
    return release
