"""Uploaded files kept between the two steps of an import whose columns need the user's word.

The page shows the first rows and asks which column is what; the bytes wait on this machine's
disk (VAR_DIR), not in the session or the browser, so a 50 MB file is not sent twice. The
folder's name is random and reaches the browser only inside a token signed with the user's and
the dataset's ids, so nobody else's upload can be named, nor a path: file names on disk are the
bundle's keys, never the uploaded names. A user keeps at most `MAX_STAGED_PER_USER` uploads,
and any older than `STAGED_MAX_AGE` is deleted whenever someone stages one.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.exceptions import ValidationError

from annotate.datasets.models import Dataset
from annotate.judgments.bundles import BUNDLE_FILES, NamedBytes

SALT = "judgments.staged-upload"
STAGED_MAX_AGE = 60 * 60  # seconds: time enough to map the columns, not to forget the files
MAX_STAGED_PER_USER = 3  # older ones go: disk use stays bounded whatever a user uploads
NAMES = "names.json"
GONE = "This upload has expired or is not yours; upload the files again."


def _root() -> Path:
    return Path(settings.VAR_DIR) / "judgment-uploads"


def _age(folder: Path) -> float:
    return time.time() - folder.stat().st_mtime


def _sweep(user_folder: Path) -> None:
    """Delete uploads past their age anywhere, and the user's oldest beyond the cap."""
    for folder in _root().glob("*/*"):
        if folder.is_dir() and _age(folder) > STAGED_MAX_AGE:
            shutil.rmtree(folder, ignore_errors=True)
    mine = sorted((f for f in user_folder.glob("*") if f.is_dir()), key=_age)
    for folder in mine[MAX_STAGED_PER_USER - 1 :]:
        shutil.rmtree(folder, ignore_errors=True)


def upload_stage(*, user: User, dataset: Dataset, files: dict[str, NamedBytes]) -> str:
    """Keep `files` (bundle key → (name, bytes)) for the mapping step; the signed token that
    names them for this user and dataset."""
    user_folder = _root() / str(user.pk)
    user_folder.mkdir(parents=True, exist_ok=True)
    _sweep(user_folder)
    key = secrets.token_urlsafe(24)
    folder = user_folder / key
    folder.mkdir()
    for name in BUNDLE_FILES:
        if name in files:
            (folder / name).write_bytes(files[name][1])
    names = {name: files[name][0] for name in BUNDLE_FILES if name in files}
    (folder / NAMES).write_text(json.dumps(names), encoding="utf-8")
    return signing.dumps({"key": key, "user": user.pk, "dataset": dataset.pk}, salt=SALT)


def _folder(token: str, user: User, dataset: Dataset) -> Path:
    try:
        found = signing.loads(token, salt=SALT, max_age=STAGED_MAX_AGE)
    except signing.BadSignature:  # expired ones too
        raise ValidationError(GONE) from None
    if not isinstance(found, dict) or (found.get("user"), found.get("dataset")) != (
        user.pk,
        dataset.pk,
    ):
        raise ValidationError(GONE)
    folder = _root() / str(user.pk) / str(found.get("key"))
    if not str(found.get("key")).replace("-", "").replace("_", "").isalnum() or not folder.is_dir():
        raise ValidationError(GONE)
    return folder


def upload_staged(*, token: str, user: User, dataset: Dataset) -> dict[str, NamedBytes]:
    """The files kept under `token` for this user and dataset (a ValidationError if gone)."""
    folder = _folder(token, user, dataset)
    names = json.loads((folder / NAMES).read_text(encoding="utf-8"))
    return {key: (str(names[key]), (folder / key).read_bytes()) for key in names}


def upload_unstage(*, token: str, user: User, dataset: Dataset) -> None:
    """Delete the files kept under `token` (once imported); nothing if already gone."""
    with contextlib.suppress(ValidationError):
        shutil.rmtree(_folder(token, user, dataset), ignore_errors=True)
