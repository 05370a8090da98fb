"""An item id names one conversation in one split: the ids that would break that rule.

A metric scored on the test split must not have seen the same id in dev (an id reused across
splits is almost always the same conversation copied twice, and a leaderboard or a study would
mix them). Every place that creates items asks here first: the judgments import
(annotate/judgments) calls :func:`split_collisions`; the dataset import, which reads all of the
dataset's items anyway, asks :func:`collisions_in`; both word their refusal with
:func:`split_collision_message`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from annotate.datasets.models import Dataset, Item

# Ids per query: under SQLite's bound-parameter limit, few round trips for large imports.
ID_BATCH = 900
NAMED_IDS = 5  # ids named in a message; the rest are counted


def split_collisions(
    *, dataset: Dataset, split: str, external_ids: Iterable[str]
) -> dict[str, str]:
    """Of `external_ids`, meant for `split`, those the dataset already has in another split:
    id → that split's name, in the order given (each id once)."""
    wanted = list(dict.fromkeys(external_ids))
    held: dict[str, set[str]] = {}
    others = Item.objects.filter(split__dataset=dataset).exclude(split__name=split)
    for start in range(0, len(wanted), ID_BATCH):
        batch = wanted[start : start + ID_BATCH]
        rows = others.filter(external_id__in=batch).values_list("external_id", "split__name")
        for external_id, other in rows:
            held.setdefault(external_id, set()).add(other)
    return collisions_in(held, split=split, external_ids=wanted)


def collisions_in(
    held: Mapping[str, Iterable[str]], *, split: str, external_ids: Iterable[str]
) -> dict[str, str]:
    """The same answer from `held` (id → the splits that have it), for a caller that has read
    the dataset's items already: the other split named is the first by name."""
    found: dict[str, str] = {}
    for external_id in dict.fromkeys(external_ids):
        others = sorted(set(held.get(external_id, ())) - {split})
        if others:
            found[external_id] = others[0]
    return found


def split_collision_message(
    collisions: Mapping[str, str], *, split: str, lines: Mapping[str, int] | None = None
) -> str:
    """One sentence naming the first ids (with their line when `lines` has it) and the count.

    `collisions` maps an id meant for `split` to the other split that has it (the shape
    :func:`split_collisions` returns)."""
    splits = " and ".join(sorted({split, *collisions.values()}))
    lines = lines or {}
    named = [
        f"{external_id!r}" + (f" (line {lines[external_id]})" if external_id in lines else "")
        for external_id in list(collisions)[:NAMED_IDS]
    ]
    more = len(collisions) - len(named)
    listed = ", ".join(named) + (f" and {more} more" if more else "")
    count = f"{len(collisions)} item id{'s' if len(collisions) != 1 else ''}"
    return (
        f"{count} would be in both the {splits} splits: {listed}. "
        "An item id names one conversation in one split; rename or drop these."
    )
