"""A judgment set's summary (no database): each system's mean per criterion over every judged
item, its 95% bootstrap interval, and agreement between the judges.

The mean is the one evaluations publish (DSTC7 Task 2's, for one): per item, the mean of its
judges' scores first; then the mean of those item means over the items the system was judged
on. Where every item has the same number of judges this is the plain mean of the judgments;
where they differ, an item judged five times weighs no more than one judged twice. Every judged
item counts, whether or not the dataset has references for it (a study's means, over items with
references only, are a different number).

The interval resamples items (the same draw for every system and criterion, so the systems stay
paired) with a fixed seed, `DRAWS` times, and takes the 2.5th and 97.5th percentiles.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from core.agreement import alpha, value_counts

DRAWS = 1000
SEED = 41  # the issue that asked for this summary: any fixed seed makes intervals reproducible
# Draws × items resampled at once: the weight matrix of a chunk stays near 32 MB (float64).
CELLS_PER_CHUNK = 4_000_000
Row = tuple[str, str, str, str, float]  # (judge, item id, system, criterion, score)


@dataclass(frozen=True)
class Cell:
    """One system on one criterion: the mean of item means, its 95% interval, the counts."""

    mean: float
    low: float
    high: float
    items: int
    judgments: int


@dataclass(frozen=True)
class SystemSummary:
    system: str
    cells: dict[str, Cell]  # criterion → cell; a criterion the system was not judged on is absent


@dataclass(frozen=True)
class CriterionAgreement:
    criterion: str
    alpha: float | None  # None: undefined (no unit judged twice, or no variation at all)
    units: int  # system × item pairs judged at least twice: what alpha is computed on
    judges: int


@dataclass(frozen=True)
class Summary:
    criteria: list[str]
    systems: list[SystemSummary]  # best first on the first criterion
    items: int
    judgments: int
    # Whether any system × item was judged more than once on a criterion: without it the set
    # holds one (aggregated) score per system × item, and agreement cannot be measured.
    individual: bool
    agreement: list[CriterionAgreement]
    draws: int = DRAWS
    seed: int = SEED

    def table(self) -> list[tuple[str, list[Cell | None]]]:
        """(system, its cell per criterion in order, None where not judged), best first."""
        return [(s.system, [s.cells.get(c) for c in self.criteria]) for s in self.systems]


def _resampled(values: np.ndarray, judged: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """Bootstrap means, shape (draws, columns): items (rows of `values`) drawn with replacement,
    each column's mean over the drawn items it has (`judged`)."""
    n = values.shape[0]
    rng = np.random.default_rng(seed)
    chunk = max(1, CELLS_PER_CHUNK // max(n, 1))
    out = []
    for start in range(0, draws, chunk):
        size = min(chunk, draws - start)
        drawn = rng.integers(0, n, size=(size, n))
        flat = (drawn + n * np.arange(size)[:, None]).ravel()
        weights = np.bincount(flat, minlength=size * n).reshape(size, n).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append((weights @ values) / (weights @ judged))
    return np.vstack(out)


def _grid(rows: Sequence[Row], systems: list[str], criteria: list[str], items: list[str]):
    """Score sums and judgment counts, shape (items, systems × criteria)."""
    item_at = {item: k for k, item in enumerate(items)}
    column = {(s, c): j for j, (s, c) in enumerate((s, c) for s in systems for c in criteria)}
    at_item = np.array([item_at[r[1]] for r in rows], dtype=int)
    at_column = np.array([column[(r[2], r[3])] for r in rows], dtype=int)
    sums = np.zeros((len(items), len(column)))
    counts = np.zeros((len(items), len(column)))
    np.add.at(sums, (at_item, at_column), np.array([r[4] for r in rows], dtype=float))
    np.add.at(counts, (at_item, at_column), 1)
    return sums, counts


def _cells(rows, systems, criteria, items, draws, seed) -> list[dict[str, Cell]]:
    sums, counts = _grid(rows, systems, criteria, items)
    judged = (counts > 0).astype(float)
    item_means = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    means = item_means.sum(axis=0) / np.maximum(judged.sum(axis=0), 1)
    low, high = np.full(means.shape, math.nan), np.full(means.shape, math.nan)
    some = judged.any(axis=0)  # a system never judged on a criterion has no interval
    if some.any():
        # A draw without any of a system's items says nothing of it: left out (NaN).
        boot = _resampled(item_means[:, some], judged[:, some], draws, seed)
        low[some], high[some] = np.nanpercentile(boot, [2.5, 97.5], axis=0)
    out: list[dict[str, Cell]] = []
    for s in range(len(systems)):
        cells = {}
        for c, criterion in enumerate(criteria):
            j = s * len(criteria) + c
            if judged[:, j].any():
                n = int(judged[:, j].sum())
                cells[criterion] = Cell(
                    float(means[j]), float(low[j]), float(high[j]), n, int(counts[:, j].sum())
                )
        out.append(cells)
    return out


def _agreement(rows: Sequence[Row], criterion: str) -> CriterionAgreement:
    triples = [(r[0], (r[2], r[1]), r[4]) for r in rows if r[3] == criterion]
    domain = sorted({score for _, _, score in triples})
    counts = value_counts(triples, domain)
    judges = len({judge for judge, _, _ in triples})
    return CriterionAgreement(criterion, alpha(counts, domain, "interval"), counts.shape[0], judges)


def _best_first(systems: list[SystemSummary], first: str | None) -> list[SystemSummary]:
    """By the first criterion's mean, highest first; a system without it last; then by name."""

    def key(summary: SystemSummary) -> tuple[float, str]:
        cell = summary.cells.get(first) if first is not None else None
        return (-cell.mean if cell is not None else math.inf, summary.system)

    return sorted(systems, key=key)


def judgments_summary(
    rows: Iterable[Row], *, criteria: Sequence[str] = (), draws: int = DRAWS, seed: int = SEED
) -> Summary:
    """The summary of (judge, item id, system, criterion, score) rows.

    Args:
        rows: one per judgment; non-finite scores are left out.
        criteria: the set's criteria in the order to show them (the first orders the systems);
            criteria found in `rows` but not named here follow, by name.
        draws, seed: the bootstrap's number of resamples of the items and its seed.
    Returns:
        per system (best first) and criterion the mean of item means, its 95% percentile
        interval and the counts; Krippendorff's alpha (interval) per criterion, over the
        system × item pairs judged at least twice, when the set has individual judgments.
    """
    kept = [r for r in rows if math.isfinite(r[4])]
    found = {r[3] for r in kept}
    order = [c for c in criteria if c in found] + sorted(found - set(criteria))
    systems = sorted({r[2] for r in kept})
    items = sorted({r[1] for r in kept})
    cells = _cells(kept, systems, order, items, draws, seed) if kept else []
    per_unit: dict[tuple[str, str, str], int] = {}
    for r in kept:
        per_unit[(r[1], r[2], r[3])] = per_unit.get((r[1], r[2], r[3]), 0) + 1
    individual = any(n > 1 for n in per_unit.values())
    summaries = [SystemSummary(s, c) for s, c in zip(systems, cells, strict=True)]
    return Summary(
        criteria=order,
        systems=_best_first(summaries, order[0] if order else None),
        items=len(items),
        judgments=len(kept),
        individual=individual,
        agreement=[_agreement(kept, c) for c in order] if individual else [],
        draws=draws,
        seed=seed,
    )
