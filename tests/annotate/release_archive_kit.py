"""Helpers for the hostile-import tests: a victim's published release, archives to tamper with,
and a fingerprint of every stored file to show that a refused import wrote nothing."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage

from annotate.datasets.models import Dataset
from annotate.releases.models import Release
from annotate.releases.selectors.content import dumps, sha256
from tests.annotate.release_kit import archive_bytes, published, rated


def victim_release(owner, make_dataset, make_campaign, make_rater) -> Release:
    """`owner`'s public dataset "pub", release 1.0.0 published, its archive built."""
    dataset, campaign = rated(make_dataset, make_campaign, make_rater, slug="pub")
    release = published(dataset, campaign, owner, include_ratings=True)
    archive_bytes(release, owner)
    return release


def archive_of(release: Release) -> bytes:
    return default_storage.open(release.archive_name).read()


def unpacked(archive: bytes) -> tuple[str, dict[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(archive)) as source:
        names = source.namelist()
        folder = names[0].split("/")[0]
        return folder, {n.split("/", 1)[1]: source.read(n) for n in names}


def repacked(folder: str, files: dict[str, bytes], *, fix_manifest: bool = True) -> bytes:
    """The files zipped again; with `fix_manifest` the manifest lists their new checksums, as
    an attacker who edits an archive would make it."""
    files = dict(files)
    if fix_manifest:
        manifest = json.loads(files["manifest.json"])
        manifest["files"] = [
            {"name": name, "bytes": len(data), "sha256": sha256(data)}
            for name, data in sorted(files.items())
            if name != "manifest.json"
        ]
        files["manifest.json"] = (dumps(manifest) + "\n").encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in files.items():
            target.writestr(f"{folder}/{name}", data)
    return buffer.getvalue()


def edited_json(data: bytes, **changes) -> bytes:
    return (dumps({**json.loads(data), **changes}) + "\n").encode()


def with_version(archive: bytes, version: str) -> bytes:
    folder, files = unpacked(archive)
    files["release.json"] = edited_json(files["release.json"], version=version)
    files["manifest.json"] = edited_json(files["manifest.json"], version=version)
    return repacked(folder, files)


def stored_files() -> dict[str, str]:
    """Every file under MEDIA_ROOT (and beside it) → its SHA-256."""
    root = Path(settings.MEDIA_ROOT).parent
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def database_counts() -> tuple[int, int]:
    return Dataset.objects.count(), Release.objects.count()
