"""The release snapshot as plain data: the one representation that files are written from.

`release_content` reads the snapshot rows; `content_checksum` hashes it canonically. Import
parses files back into the same shape, so writing files from imported rows gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db.models import Prefetch

from annotate.releases.models import Release, ReleaseItem, ReleaseReference, weight_field

REFERENCE_FIELDS = ("text", "origin", "weight", "z_weight", "n", "mean", "sd", "ci_low", "ci_high")


def dumps(value: Any) -> str:
    """Compact JSON with sorted keys: jsonb keeps no key order, so only sorting is stable."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def reference_data(ref: ReleaseReference) -> dict[str, Any]:
    return {name: getattr(ref, name) for name in REFERENCE_FIELDS}


def release_content(*, release: Release, public_only: bool) -> list[dict[str, Any]]:
    """Items in position order: {id, split, context, message, refs (None when hidden)}."""
    public = set(release.public_splits)
    items = ReleaseItem.objects.filter(release=release).prefetch_related(
        Prefetch("references", queryset=ReleaseReference.objects.order_by("position"))
    )
    content = []
    for item in items.order_by("position"):
        hidden = public_only and item.split not in public
        content.append(
            {
                "id": item.external_id,
                "split": item.split,
                "context": list(item.context),
                "message": item.message,
                "refs": None if hidden else [reference_data(r) for r in item.references.all()],
            }
        )
    return content


def content_checksum(content: list[dict[str, Any]]) -> str:
    """SHA-256 of the whole snapshot, hidden splits included: a commitment to the hidden
    references that anyone can check once they are revealed."""
    digest = hashlib.sha256()
    for item in content:
        digest.update(dumps(item).encode() + b"\n")
    return digest.hexdigest()


def scoring_refs(item: dict[str, Any], variant: str) -> list[dict[str, Any]] | None:
    """The metric's view of an item: rated references with the release's weight, or None when
    ΔBLEU cannot score it (no reference with a positive weight)."""
    key = weight_field(variant)
    refs = [{"text": r["text"], "weight": r[key]} for r in item["refs"] or [] if r[key] is not None]
    return refs if any(r["weight"] > 0 for r in refs) else None
