"""The single-file download: a zip of the release's files, built once by a Celery job.

The zip is deterministic (fixed timestamps and permissions, files in name order), so the same
release gives the same archive bytes here and after an import elsewhere.
"""

from __future__ import annotations

import io
import zipfile

from django.core.files.storage import default_storage

from annotate.releases.models import Release
from annotate.releases.selectors.content import sha256
from annotate.releases.services.files import MANIFEST
from core.filesets import fileset_delete, fileset_write
from core.paths import safe_relative, storage_join
from core.runs.context import RunContext
from core.runs.engine import run_create
from core.runs.models import Run

JOB_KIND = "release-archive"
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest date zip can store


def archive_folder(release: Release) -> str:
    # The slug comes from build_info, which an imported release brought along: checked again.
    return safe_relative(f"{release.build_info['dataset']['slug']}-{release.version}")


def archive_bytes(*, folder: str, files: dict[str, bytes], progress=None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for done, name in enumerate(sorted(files), start=1):
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=ZIP_EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
            if progress is not None:
                progress(done, len(files))
    return buffer.getvalue()


def release_stored_file(*, release: Release, name: str) -> bytes:
    with default_storage.open(storage_join(release.storage_prefix, name), "rb") as stored:
        return stored.read()


def release_archive_ready(*, release: Release) -> bool:
    return bool(release.archive_name) and default_storage.exists(release.archive_name)


def release_archive_job(*, release: Release) -> Run | None:
    runs = Run.objects.filter(kind=JOB_KIND, scope=f"release:{release.pk}", state__in=Run.ACTIVE)
    return runs.order_by("-created_at").first()


def release_archive_request(*, release: Release) -> Run | None:
    """Start building the archive unless it is built or being built; None when it is ready."""
    release.refresh_from_db()
    if not release.is_published or release_archive_ready(release=release):
        return None
    running = release_archive_job(release=release)
    if running is not None:
        return running
    return run_create(
        kind=JOB_KIND,
        owner=release.created_by,
        scope=f"release:{release.pk}",
        params={"release_id": release.pk, "version": release.version},
    )


def release_archive_build(job: RunContext) -> dict[str, str]:
    """The run's work: read the stored files, check them against the manifest, zip them."""
    release = Release.objects.select_related("dataset").get(pk=job.params["release_id"])
    if release_archive_ready(release=release):
        return {"archive": release.archive_name, "sha256": release.archive_sha256}
    listing = release.manifest["files"]
    files = {}
    for done, entry in enumerate(listing, start=1):
        data = release_stored_file(release=release, name=entry["name"])
        if sha256(data) != entry["sha256"]:
            raise ValueError(f"{entry['name']} does not match its checksum in the manifest")
        files[entry["name"]] = data
        job.progress(done, 2 * len(listing) + 2, "Reading")
    files[MANIFEST] = release_stored_file(release=release, name=MANIFEST)
    data = archive_bytes(
        folder=archive_folder(release),
        files=files,
        progress=lambda n, total: job.progress(len(listing) + n, message="Compressing"),
    )
    [name] = fileset_write(
        prefix=release.storage_prefix, files={archive_folder(release) + ".zip": data}
    )
    # Only if no reveal replaced the files meanwhile: the archive would be of the old set.
    current = Release.objects.filter(pk=release.pk, manifest_checksum=release.manifest_checksum)
    if not current.update(archive_name=name, archive_sha256=sha256(data)):
        fileset_delete([name])
        return {"archive": "", "superseded": "a reveal changed the files; the new archive is next"}
    return {"archive": name, "sha256": sha256(data)}
