"""The content of a release archive, parsed and checked field by field before rows are built.

The import's last word is byte-for-byte: the files written again from the rows must equal the
archive's. These checks come first so that a garbled or hostile file is refused with a message
naming the file, line and field — not a server error, and not values of the wrong type in the
database (SQLite would take them) — and so that every value that becomes part of a storage
path (version, slug) is checked before any path is built from it.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug

from annotate.datasets.models import Origin, SplitName
from annotate.releases.selectors.content import REFERENCE_FIELDS
from annotate.releases.services.archive_reading import ArchiveFiles, json_loads
from annotate.releases.services.freeze import release_version_check
from annotate.releases.services.publish import FORMAT
from core.tabular import restore

NUMBER_OR_NONE = (int, float, type(None))
META_FIELDS: dict[str, tuple[type, ...]] = {
    "format": (str,),
    "version": (str,),
    "weight_variant": (str,),
    "public_splits": (list,),
    "include_ratings": (bool,),
    "license": (str,),
    "citation": (str,),
    "description": (str,),
    "published_at": (str,),
    "snapshot_checksum": (str,),
    "build_info": (dict,),
}
DATASET_FIELDS: dict[str, tuple[type, ...]] = {
    "name": (str,),
    "slug": (str,),
    "language": (str,),
    "description": (str,),
    "scale_min": (int,),
    "scale_max": (int,),
}
ITEM_FIELDS: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "split": (str,),
    "context": (list,),
    "message": (str,),
}
REFERENCE_TYPES: dict[str, tuple[type, ...]] = {
    name: (str,) if name in ("text", "origin") else (int,) if name == "n" else NUMBER_OR_NONE
    for name in REFERENCE_FIELDS
}
# Counts, weights and their intervals: a hand-made archive can say 10**400 (no float holds it)
# or a weight of 7 (which the rebuilt files would repeat, so the byte check would not catch it).
WEIGHT_FIELDS = ("weight", "z_weight", "ci_low", "ci_high")
WEIGHT_SLACK = 1e-9  # a mean of scores on the scale can round just past [-1, 1]
MAX_COUNT = 2**31 - 1  # ReleaseReference.n, a PositiveIntegerField
MAX_ITEM_ID = 200  # ReleaseItem.external_id
MAX_RATER = 20  # ReleaseRating.rater
MAX_SCORE = 32767  # PositiveSmallIntegerField


def _is(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):  # an int to Python, never a number in these files
        return bool in types
    return isinstance(value, types)


def _typed(value: Any, fields: dict[str, tuple[type, ...]], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValidationError(f"{where} must be a JSON object.")
    for name, types in fields.items():
        if name not in value or not _is(value[name], types):
            expected = " or ".join(t.__name__ for t in types)
            raise ValidationError(f"{where}: {name} must be a {expected}.")
    return value


def release_meta_checked(files: ArchiveFiles) -> dict[str, Any]:
    """release.json, checked: the fields a release is created from, with the right types."""
    meta = _typed(files.json("release.json"), META_FIELDS, "release.json")
    if meta["format"] != FORMAT:
        raise ValidationError(f"Unknown release format {meta['format'][:40]!r}.")
    release_version_check(meta["version"])
    if files.json("manifest.json").get("version") != meta["version"]:
        raise ValidationError({"version": "manifest.json and release.json differ."})
    splits = meta["public_splits"]
    if not all(isinstance(s, str) for s in splits) or not set(splits) <= set(SplitName.values):
        raise ValidationError({"public_splits": "release.json names an unknown split."})
    dataset = _typed(meta["build_info"].get("dataset"), DATASET_FIELDS, "build_info.dataset")
    try:  # it names the archive's folder when the release is downloaded again: a path part
        validate_slug(dataset["slug"])
    except ValidationError:
        raise ValidationError({"slug": "build_info.dataset.slug is not a slug."}) from None
    try:
        published = datetime.fromisoformat(meta["published_at"])
    except ValueError:
        published = None
    if published is None or published.tzinfo is None:
        raise ValidationError({"published_at": "It must be a date and time with a time zone."})
    return {**meta, "published_at": published}


def _finite(number: float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:  # an int past what a float holds
        return False


def _reference(value: Any, where: str) -> dict[str, Any]:
    ref = _typed(value, REFERENCE_TYPES, where)
    if ref["origin"] not in Origin.values or not 0 <= ref["n"] <= MAX_COUNT:
        raise ValidationError(f"{where}: origin or n is out of range.")
    numbers = {name: ref[name] for name in ("mean", "sd", *WEIGHT_FIELDS) if ref[name] is not None}
    for name, number in numbers.items():
        if not _finite(number) or (name in WEIGHT_FIELDS and abs(number) > 1 + WEIGHT_SLACK):
            raise ValidationError(f"{where}: {name} is out of range.")
    return ref


def _item(line: int, value: Any) -> dict[str, Any]:
    where = f"items.jsonl line {line}"
    item = _typed(value, ITEM_FIELDS, where)
    if item["split"] not in SplitName.values or not 0 < len(item["id"]) <= MAX_ITEM_ID:
        raise ValidationError(f"{where}: split or id is out of range.")
    if not all(isinstance(turn, str) for turn in item["context"]):
        raise ValidationError(f"{where}: context must be a list of strings.")
    refs = item.get("refs")
    if refs is not None and not isinstance(refs, list):
        raise ValidationError(f"{where}: refs must be a list.")
    return {
        **item,
        "refs": None if refs is None else [_reference(r, f"{where}, a ref") for r in refs],
    }


def release_items_checked(files: ArchiveFiles) -> list[dict[str, Any]]:
    """items.jsonl as release content (see content.release_content), checked line by line."""
    if "items.jsonl" not in files.digests:
        raise ValidationError("The archive has no items.jsonl.")
    items = []
    for line, text in files.lines("items.jsonl"):
        if not text:
            continue
        try:
            value = json_loads(text)
        except ValueError as exc:
            raise ValidationError(f"items.jsonl line {line} is not valid JSON ({exc}).") from None
        items.append(_item(line, value))
    return items


def release_ratings_checked(files: ArchiveFiles) -> list[tuple[str, str, int, str, int]]:
    """ratings.tsv's rows (item id, split, reference position, rater, score), checked."""
    if "ratings.tsv" not in files.digests:
        raise ValidationError("The release includes ratings but the archive has no ratings.tsv.")
    rows = []
    for line, text in files.lines("ratings.tsv"):
        if line == 1 or not text:
            continue
        cells = [restore(cell) for cell in text.split("\t")]  # undo core.tabular's escape
        try:
            item_id, split, position, rater, score = cells
            row = (item_id, split, int(position), rater, int(score))
        except ValueError:
            raise ValidationError(f"ratings.tsv line {line} is not a rating row.") from None
        if len(rater) > MAX_RATER or not 0 <= row[4] <= MAX_SCORE or row[2] < 0:
            raise ValidationError(f"ratings.tsv line {line}: a value is out of range.")
        rows.append(row)
    return rows
