"""Leave one out: a system's output is not scored against a copy of itself.

When one of the "systems" is the human responses — and those responses are also among the
references, as is common in dialogue data — that system matches a reference exactly on most
items and every reference-based metric rates it near perfect. With `StudyData.leave_one_out`,
for each system and item, the references identical to the system's output after `normalise`
(lowercase, whitespace collapsed, punctuation stripped at both ends) are left out of that
output's references before its statistics are computed; the other systems keep them. An item
left with no positive reference keeps its best-rated one (the rule of `data.select_refs`), and
those items are counted.

Per-item metrics (the BLEU family, AMBER, 4-GRR) are recomputed for the affected items only;
NIST and ΔNIST weigh n-grams by their information over all references, so an affected system's
rows are recomputed over every item against its own reference collection.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

import numpy as np

from .configs import Config
from .data import StudyData, StudyRef
from .stats import NIST_FAMILY, Rows, compute_stats

_SPACE = re.compile(r"\s+")
_ENDS = string.punctuation + "¡¿…«»“”‘’—–"


def normalise(text: str) -> str:
    """Lowercase, runs of whitespace as one space, punctuation stripped at both ends."""
    return _SPACE.sub(" ", text.lower()).strip().strip(_ENDS).strip()


def _coinciding(data: StudyData, system: str) -> dict[int, set[int]]:
    """Per item where the system's output equals references: the positions of those refs."""
    found: dict[int, set[int]] = {}
    for i, (output, refs) in enumerate(zip(data.outputs[system], data.refs, strict=True)):
        if output is None:
            continue
        key = normalise(output)
        same = {k for k, ref in enumerate(refs) if normalise(ref.text) == key}
        if same:
            found[i] = same
    return found


def coinciding_systems(data: StudyData) -> dict[str, float]:
    """Per system: the share of its outputs identical (normalised) to one of the item's
    references (over the items where it has an output). A high share (≥ 0.5, say) means the
    system copies references — often human responses also used as references — and
    `leave_one_out` should be on."""
    shares = {}
    for system in sorted(data.outputs):
        n_outputs = sum(o is not None for o in data.outputs[system])
        shares[system] = len(_coinciding(data, system)) / n_outputs if n_outputs else 0.0
    return shares


def _without(refs: list[StudyRef], positions: set[int]) -> tuple[list[StudyRef], bool]:
    """The references minus `positions`, and whether the item fell back to its best one."""
    kept = [r for k, r in enumerate(refs) if k not in positions]
    if not kept or max(r.weight for r in kept) <= 0:
        return [max(refs, key=lambda r: r.weight)], True
    return kept, False


def _view(data: StudyData, system: str, items: list[int], refs: list[list[StudyRef]]) -> StudyData:
    outputs: list[str | None] = [data.outputs[system][i] for i in items]
    return StudyData([data.item_ids[i] for i in items], refs, {system: outputs}, [], {})


def apply_leave_one_out(
    data: StudyData, configs: Iterable[Config], stats: dict[str, Rows], processes: int = 1
) -> dict[str, dict[str, int]]:
    """Recompute in place, in `stats`, the rows of every output that has a copy among its
    references, without that copy. Returns per system the items affected and those that fell
    back to their best-rated reference (the copy was their only positive one)."""
    configs = list({c.key: c for c in configs}.values())
    local = [c for c in configs if c.metric not in NIST_FAMILY]
    corpus = [c for c in configs if c.metric in NIST_FAMILY]
    report: dict[str, dict[str, int]] = {}
    for system in data.systems:
        found = _coinciding(data, system)
        if not found:
            continue
        items = sorted(found)
        reduced = [_without(data.refs[i], found[i]) for i in items]
        report[system] = {"items": len(items), "fallbacks": sum(fb for _, fb in reduced)}
        if local:
            view = _view(data, system, items, [refs for refs, _ in reduced])
            rows, _ = compute_stats(view, local, processes)
            for key, by_system in rows.items():
                stats[key][system] = stats[key][system].copy()
                stats[key][system][np.array(items)] = by_system[system]
        if corpus:
            every = list(data.refs)
            for i, (refs, _) in zip(items, reduced, strict=True):
                every[i] = refs
            view = _view(data, system, list(range(len(data.item_ids))), every)
            rows, _ = compute_stats(view, corpus, processes)
            for key, by_system in rows.items():
                stats[key][system] = by_system[system]
    return report
