"""One significance answer for a leaderboard: the board's rank groups and the compare page both
read it, so they cannot disagree about a pair.

The test is a paired bootstrap (Koehn 2004, sacrebleu's p-value) of the primary metric for every
pair of ranked entries, computed when a score lands; the family of all pairs of the board is
corrected by Holm–Bonferroni. A pair is significantly different when its adjusted p < 0.05.

Rank groups are drawn from those answers: the ranked list (best first) is cut between two
neighbours only where every entry above the cut is significantly different from every entry
below it. So entries in different groups always differ significantly. Significance is not
transitive, though (A ~ B and B ~ C while A ≠ C), so two entries of one group may still differ;
the compare page says so, and why, instead of contradicting the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from scoring.metrics import Metric, equal_scores_p, holm_adjust, paired_bootstrap_matrix

ALPHA = 0.05
RESAMPLES = 1000
TEST = "paired bootstrap resampling (Koehn 2004, 1,000 resamples)"
CORRECTION = "Holm–Bonferroni"


def correction_text(pairs: int) -> str:
    if pairs == 0:
        return f"{CORRECTION}, once two entries are ranked"
    family = "the 1 pair" if pairs == 1 else f"the {pairs} pairs"
    return f"{CORRECTION} over {family} of ranked entries"


@dataclass(frozen=True)
class BoardSignificance:
    """Raw p-values of every pair of ranked entries (best first), as stored on the board."""

    p: list[list[float]]

    @property
    def n(self) -> int:
        return len(self.p)

    @property
    def pairs(self) -> int:
        return self.n * (self.n - 1) // 2

    @cached_property
    def adjusted(self) -> np.ndarray:
        raw = np.array(self.p, dtype=np.float64).reshape(self.n, self.n)
        upper = np.triu_indices(self.n, k=1)
        out = np.ones((self.n, self.n))
        out[upper] = holm_adjust(raw[upper])
        return np.minimum(out, out.T)

    def significant(self, i: int, j: int) -> bool:
        return i != j and bool(self.adjusted[i, j] < ALPHA)

    @cached_property
    def groups(self) -> list[int]:
        """1-based group of each entry: a new group starts at k where every entry above k is
        significantly different from every entry from k on."""
        significant = self.adjusted < ALPHA
        groups = [1] if self.n else []
        for k in range(1, self.n):
            cut = bool(significant[:k, k:].all())
            groups.append(groups[-1] + 1 if cut else groups[-1])
        return groups

    def as_stored(self) -> dict[str, list]:
        return {"groups": self.groups, "p": self.p}


def significance_compute(
    metric: Metric, stats: Sequence[np.ndarray], scores: Sequence[float]
) -> BoardSignificance:
    """Every pair's bootstrap p-value from the entries' per-item statistics (best first).

    Equal corpus scores get p = 1 (the metric library's `equal_scores_p`, which `dbleu` applies
    too): sacrebleu's p-value is 1/(n+1) for a zero difference, yet equal scores give no
    ranking evidence. Entries scored on different items (a board whose items changed) cannot be
    compared and count as different (p = 0).
    """
    n = len(stats)
    p = np.ones((n, n))
    shapes = {matrix.shape for matrix in stats}
    if len(shapes) == 1 and n > 1:
        p = paired_bootstrap_matrix(metric, list(stats), n_samples=RESAMPLES)
    elif n > 1:
        for i in range(n):
            for j in range(i + 1, n):
                if stats[i].shape != stats[j].shape:
                    p[i, j] = p[j, i] = 0.0
                    continue
                pair = paired_bootstrap_matrix(metric, [stats[i], stats[j]], RESAMPLES)
                p[i, j] = p[j, i] = pair[0, 1]
    board = np.asarray(scores, dtype=np.float64)
    p = equal_scores_p(p, board[:, None], board[None, :])
    return BoardSignificance([[float(v) for v in row] for row in p])


@dataclass(frozen=True)
class PairAnswer:
    """The answer for two submissions, as the board gives it (or, off the board, alone)."""

    on_board: bool
    p_value: float
    p_adjusted: float
    pairs: int
    significant: bool
    group_a: int | None
    group_b: int | None

    @property
    def same_group(self) -> bool | None:
        if self.group_a is None or self.group_b is None:
            return None
        return self.group_a == self.group_b

    @property
    def test(self) -> str:
        return TEST

    @property
    def correction(self) -> str:
        if not self.on_board:
            return "none (not both on the board: a single test)"
        return correction_text(self.pairs)

    @property
    def grouped_although_significant(self) -> bool:
        """Significant, yet one group: an entry between them ties with one of them."""
        return bool(self.significant and self.same_group)


def pair_on_board(significance: BoardSignificance, groups: list[int], i: int, j: int) -> PairAnswer:
    return PairAnswer(
        on_board=True,
        p_value=significance.p[i][j],
        p_adjusted=float(significance.adjusted[i, j]),
        pairs=significance.pairs,
        significant=significance.significant(i, j),
        group_a=groups[i],
        group_b=groups[j],
    )


def pair_alone(
    metric: Metric, stats_a: np.ndarray, stats_b: np.ndarray, scores: tuple
) -> PairAnswer:
    """The same test for a pair that is not ranked together (a withdrawn entry, a team's pick
    that does not count): no family, so no correction and no groups."""
    single = significance_compute(metric, [stats_a, stats_b], list(scores))
    p = single.p[0][1]
    return PairAnswer(False, p, p, 1, p < ALPHA, None, None)
