"""What changed between two releases of a dataset: items, references and weights."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User

from annotate.releases.models import Release
from annotate.releases.selectors.content import release_content
from annotate.releases.selectors.releases import release_can_see_hidden

Key = tuple[str, str]  # (split, item id)


def _by_key(release: Release, public_only: bool) -> dict[Key, dict[str, Any]]:
    content = release_content(release=release, public_only=public_only)
    return {(item["split"], item["id"]): item for item in content}


def _ref_changes(key: Key, old: dict[str, Any], new: dict[str, Any], out: dict) -> None:
    old_refs = {r["text"]: r for r in old["refs"]}
    new_refs = {r["text"]: r for r in new["refs"]}
    where = {"split": key[0], "item": key[1]}
    for text in new_refs.keys() - old_refs.keys():
        out["references_added"].append({**where, "text": text})
    for text in old_refs.keys() - new_refs.keys():
        out["references_removed"].append({**where, "text": text})
    for text in old_refs.keys() & new_refs.keys():
        a, b = old_refs[text], new_refs[text]
        if (a["weight"], a["z_weight"], a["n"]) != (b["weight"], b["z_weight"], b["n"]):
            out["weights_changed"].append(
                {
                    **where,
                    "text": text,
                    "old": {"weight": a["weight"], "z_weight": a["z_weight"], "n": a["n"]},
                    "new": {"weight": b["weight"], "z_weight": b["z_weight"], "n": b["n"]},
                }
            )


def release_diff(*, user: User | AnonymousUser, old: Release, new: Release) -> dict[str, Any]:
    """Differences from `old` to `new`; references of splits hidden from the user (in either
    release) are not compared, and those splits are listed under `hidden_splits`."""
    public_only = not release_can_see_hidden(user=user, release=new)
    before, after = _by_key(old, public_only), _by_key(new, public_only)
    out: dict[str, Any] = {
        "old": old.version,
        "new": new.version,
        "items_added": [{"split": s, "item": i} for s, i in sorted(after.keys() - before.keys())],
        "items_removed": [{"split": s, "item": i} for s, i in sorted(before.keys() - after.keys())],
        "items_changed": [],
        "references_added": [],
        "references_removed": [],
        "weights_changed": [],
        "hidden_splits": [],
    }
    hidden = set()
    for key in sorted(before.keys() & after.keys()):
        a, b = before[key], after[key]
        if (a["context"], a["message"]) != (b["context"], b["message"]):
            out["items_changed"].append({"split": key[0], "item": key[1]})
        if a["refs"] is None or b["refs"] is None:
            hidden.add(key[0])
            continue
        _ref_changes(key, a, b, out)
    out["hidden_splits"] = sorted(hidden)
    return out
