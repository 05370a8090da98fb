"""How stable a ranking is over paired bootstrap replicates: each system's rank distribution,
ties counting half (the rank probabilities, expected ranks and P(ahead of next) a board shows)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import MetricInputError
from .significance import percentile_bounds


@dataclass(frozen=True, eq=False)
class RankStability:
    """How stable a ranking of S systems is over B bootstrap replicates (rank 1 = best)."""

    rank_probs: np.ndarray  # (S, S): [s, r] = P(system s has rank r + 1)
    expected_rank: np.ndarray  # (S,)
    neighbour_order: np.ndarray  # (S - 1,): P(system k stays ahead of system k + 1)
    rank_bounds: np.ndarray  # (S, 2): 95% interval of each system's rank
    score_bounds: np.ndarray  # (S, 2): 95% interval of each system's score


def rank_stability(replicates: np.ndarray, higher_is_better: bool = True) -> RankStability:
    """The distribution of every system's rank over paired replicates.

    Args:
        replicates: (S, B) scores, row s the replicates of system s (paired: column b of every
            row drawn alike, as :func:`two_level_bootstrap` draws them for one seed).
        higher_is_better: the metric's direction.

    Returns:
        A :class:`RankStability`. In each replicate systems are ranked by score; entries tied
        there count half (a tie between m entries gives each of them 1/m of each rank the tie
        spans, and mid-ranks for the expected rank and its interval), whatever order they are
        listed in. ``neighbour_order[k]`` is the share of replicates in which system k scores
        better than system k + 1 (in the order given), ties counting half; the 95% intervals
        are :func:`~.significance.percentile_bounds` (sacrebleu's).
    """
    scores = np.asarray(replicates, dtype=np.float64)
    if scores.ndim != 2 or 0 in scores.shape:
        raise MetricInputError("replicates must be a non-empty (systems, replicates) matrix")
    n_sys, n_rep = scores.shape
    signed = scores if higher_is_better else -scores
    better = np.zeros((n_sys, n_rep))  # entries scoring strictly better, per replicate
    tied = np.zeros((n_sys, n_rep))  # entries scoring the same, itself included
    for s in range(n_sys):
        better[s] = (signed > signed[s]).sum(axis=0)
        tied[s] = (signed == signed[s]).sum(axis=0)
    # Each entry spreads 1/tied over ranks better .. better + tied - 1: a difference array.
    spread = np.zeros((n_sys, n_sys + 1))
    rows = np.repeat(np.arange(n_sys), n_rep)
    np.add.at(spread, (rows, better.ravel().astype(np.intp)), 1.0 / tied.ravel())
    np.add.at(spread, (rows, (better + tied).ravel().astype(np.intp)), -1.0 / tied.ravel())
    probs = np.cumsum(spread, axis=1)[:, :n_sys] / n_rep
    mid_rank = better + (tied + 1) / 2
    ahead = (signed[:-1] > signed[1:]) + 0.5 * (signed[:-1] == signed[1:])
    return RankStability(
        probs,
        mid_rank.mean(axis=1),
        ahead.mean(axis=1),
        np.array([percentile_bounds(r) for r in mid_rank]),
        np.array([percentile_bounds(s) for s in scores]),
    )
