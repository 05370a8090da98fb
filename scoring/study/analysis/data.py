"""The inputs of a correlation study, and the reference sets of the paper's Table 2."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from scoring.metrics import RefItem, WeightedRef


class StudyInputError(ValueError):
    """The data cannot support the study (no pair with a usable item, …). Here rather than in
    `engine`, so that the app can name it without importing the engine (and scipy)."""


@dataclass(frozen=True)
class StudyRef:
    """A rated reference; `original` marks the item's own response (the "single" set)."""

    text: str
    weight: float
    original: bool = False


EXTERNAL_PREFIX = "external: "


@dataclass(frozen=True)
class ExternalScores:
    """A metric computed outside the app: its per-response scores as uploaded,
    `scores[system][i]` on item i (NaN where it gave none). It joins the segment level as one
    more per-response score grid, and the system level with a system's score the mean of its
    scores over the items the system table shares — nothing recomputes it, so it has no
    statistics rows and no pair level (Table 2)."""

    name: str
    scores: dict[str, np.ndarray]
    higher_is_better: bool = True
    description: str = ""

    @property
    def key(self) -> str:
        return f"external:{self.name}"

    @property
    def sign(self) -> int:
        return 1 if self.higher_is_better else -1

    @property
    def head(self) -> dict:
        """What a row of a table says of it: "external: <name>" everywhere a built-in
        metric's name would be, so nobody mistakes it for one."""
        label = f"{EXTERNAL_PREFIX}{self.name}"
        direction = "higher" if self.higher_is_better else "lower"
        signature = f"{label}|{direction} is better|uploaded per-response scores"
        if self.description.strip():
            signature += f"|{' '.join(self.description.split())[:300]}"
        return {"key": self.key, "metric": "external", "display": label, "label": label,
                "signature": signature, "refs": ""}  # fmt: skip

    def raw(self, systems: list[str], has_output: np.ndarray) -> np.ndarray:
        """(systems, items) of the scores as uploaded; NaN where none or no output."""
        missing = np.full(has_output.shape[1], np.nan)
        grid = np.vstack([np.asarray(self.scores.get(s, missing), dtype=float) for s in systems])
        return np.where(has_output, grid, np.nan)


@dataclass
class StudyData:
    """Everything a study needs, aligned on `item_ids`.

    `outputs[system][i]` is the system's output for item i (None when it has none).
    `human[criterion][(a, b)][i]` is the human difference a − b on item i for a criterion (NaN
    when not judged): the mean rating of a minus that of b, or the mean preference for a on the
    −2…+2 pairwise scale. The first criterion is the primary one (Figure 2's sweeps use it).
    `system_scores[criterion][system][i]` is the system's mean human score on item i (NaN when
    not judged), for the system-level table; empty for pairwise campaigns.
    `external`: metrics computed elsewhere, by system and item (`ExternalScores`).
    `leave_one_out`: a reference equal (after `loo.normalise`) to a system's output is left out
    of that output's references (see `loo`).
    """

    item_ids: list[str]
    refs: list[list[StudyRef]]
    outputs: dict[str, list[str | None]]
    pairs: list[tuple[str, str]]
    human: dict[str, dict[tuple[str, str], np.ndarray]]
    notes: list[str] = field(default_factory=list)
    system_scores: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    leave_one_out: bool = False
    external: list[ExternalScores] = field(default_factory=list)

    @property
    def criteria(self) -> list[str]:
        return list(self.human)

    def judged(self, pair: tuple[str, str]) -> np.ndarray:
        """Whether each item is judged for `pair` in every criterion (units are shared by all
        criteria, so an item judged in only some of them is left out of the pair)."""
        judged = np.ones(len(self.item_ids), dtype=bool)
        for by_pair in self.human.values():
            judged &= np.isfinite(np.asarray(by_pair[pair], dtype=float))
        return judged

    def has_output(self, system: str) -> np.ndarray:
        return np.array([h is not None for h in self.outputs[system]], dtype=bool)

    def pair_items(self, pair: tuple[str, str]) -> np.ndarray:
        """Indices of the items usable for `pair`: judged in every criterion, and both systems
        have an output."""
        a, b = pair
        return np.flatnonzero(self.judged(pair) & self.has_output(a) & self.has_output(b))

    @property
    def systems(self) -> list[str]:
        """The systems whose statistics a study needs: those of the pairs and of the
        system-level scores that have outputs; every system of `outputs` when there are
        neither (a view built for statistics only)."""
        named = {s for pair in self.pairs for s in pair}
        named |= {s for scores in self.system_scores.values() for s in scores}
        if not named:
            return sorted(self.outputs)
        return sorted(named & set(self.outputs))


REFSET_SINGLE = "single"
REFSET_ALL = "all"


def refset_key(refset: str, theta: float | None = None) -> str:
    """`single`, `all`, or `w>=0.6` for a weight threshold."""
    return f"w>={theta:g}" if refset == "theta" else refset


def _best(refs: Sequence[StudyRef]) -> list[StudyRef]:
    return [max(refs, key=lambda r: r.weight)]


def select_refs(refs: Sequence[StudyRef], refset: str, theta: float | None = None) -> list:
    """The references of one item in a reference set (Table 2's rows).

    `single` is the original response; `theta` the references with weight ≥ θ; `all` every
    rated one. An item left with no reference — or, for ΔBLEU's denominator, none with a
    positive weight — keeps its best-rated reference instead, so every configuration scores
    the same items (the count of such fallbacks is reported with the study).
    """
    if refset == REFSET_SINGLE:
        chosen = [r for r in refs if r.original]
    elif refset == "theta":
        chosen = [r for r in refs if theta is not None and r.weight >= theta]
    else:
        chosen = list(refs)
    if not chosen or max(r.weight for r in chosen) <= 0:
        return _best(refs)
    return chosen


def ref_items(data: StudyData, refset: str, theta: float | None = None) -> tuple[list, int]:
    """`RefItem`s of a reference set and the number of items that fell back to their best."""
    items, fallbacks = [], 0
    for item_id, refs in zip(data.item_ids, data.refs, strict=True):
        chosen = select_refs(refs, refset, theta)
        if (
            refset != REFSET_ALL
            and len(chosen) == 1
            and not _matches_rule(chosen[0], refset, theta)
        ):
            fallbacks += 1
        items.append(RefItem(item_id, tuple(WeightedRef(r.text, r.weight) for r in chosen)))
    return items, fallbacks


def _matches_rule(ref: StudyRef, refset: str, theta: float | None) -> bool:
    if refset == REFSET_SINGLE:
        return ref.original and ref.weight > 0
    return theta is not None and ref.weight >= theta and ref.weight > 0
