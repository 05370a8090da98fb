"""Writing a set of files to storage so that readers see all of them or none of them (and
deleting a folder of them: `folder_delete`).

Django's storage API (local disk today, S3 later) has no rename, so nothing can be moved into
place. Instead a set is written under a prefix that no reader knows yet, every file is read back
and checked against what was meant, and only then does the caller publish the prefix, in one
database UPDATE. If writing, checking or the caller's block fails, what was written is deleted
again. A crash between writing and publishing leaves an unreferenced folder: garbage, never a
half-written set that anyone reads.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, Storage, default_storage

from core.paths import storage_join

log = logging.getLogger(__name__)
CHUNK_BYTES = 1024 * 1024


def _digest(storage: Storage, name: str) -> str:
    digest = hashlib.sha256()
    with storage.open(name, "rb") as stored:
        for chunk in iter(lambda: stored.read(CHUNK_BYTES), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fileset_write(
    *, prefix: str, files: Mapping[str, bytes], storage: Storage | None = None
) -> list[str]:
    """Write `files` (name → bytes) under `prefix` and check each; the storage names written.

    `prefix` must be the caller's own, unpublished folder: a file already there was left by an
    attempt that never published it, so it is replaced.
    """
    storage = storage or default_storage
    written: list[str] = []
    try:
        for name, data in files.items():
            path = storage_join(prefix, name)
            if storage.exists(path):
                storage.delete(path)
            saved = storage.save(path, ContentFile(data))
            written.append(saved)
            if saved != path:  # the storage picked another name: the set would be broken
                raise OSError(f"Storage saved {path} as {saved}.")
        for name, data in files.items():
            if _digest(storage, storage_join(prefix, name)) != hashlib.sha256(data).hexdigest():
                raise OSError(f"{storage_join(prefix, name)} does not read back as written.")
    except BaseException:
        fileset_delete(written, storage=storage)
        raise
    return written


def fileset_delete(names: Iterable[str], *, storage: Storage | None = None) -> None:
    """Delete what exists of `names`; a failure is logged, since this runs while cleaning up."""
    storage = storage or default_storage
    for name in names:
        try:
            storage.delete(name)
        except OSError:
            log.exception("could not delete %s", name)


def folder_delete(folder: str, *, storage: Storage | None = None) -> None:
    """Delete a storage folder with everything under it (nothing when there is no folder)."""
    storage = storage or default_storage
    try:
        folders, files = storage.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in files:
        storage.delete(f"{folder}/{name}")
    for name in folders:
        folder_delete(f"{folder}/{name}", storage=storage)
    if isinstance(storage, FileSystemStorage):  # the empty folder too (S3 keeps no folders)
        shutil.rmtree(storage.path(folder), ignore_errors=True)


@contextmanager
def fileset_staged(
    *, prefix: str, files: Mapping[str, bytes], storage: Storage | None = None
) -> Iterator[list[str]]:
    """Write and check `files`, then run the block that publishes them; if the block fails,
    delete them again."""
    written = fileset_write(prefix=prefix, files=files, storage=storage)
    try:
        yield written
    except BaseException:
        fileset_delete(written, storage=storage)
        raise
