"""Quality-control checks on one rater's answers (no database): the verdict and its reasons.

A rater is judged on four things, each against a threshold of the campaign:
- bad references (a good reply with a foreign phrase, or another conversation's reply) must score
  lower than the references they were built from: a one-sided Mann–Whitney U test;
- a repeated item must get about the score it got the first time (mean absolute difference);
- answers must not be too quick (median seconds per rating);
- answers must not straight-line (the share of ratings that repeat the previous score).
The verdict waits until enough bad references are rated for the test to mean something.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from statistics import median

import numpy as np

PENDING, PASSED, FAILED = "pending", "passed", "failed"
STRAIGHTLINE_MIN_RATINGS = 10  # fewer answers than this repeat a score by chance too often


@dataclass(frozen=True)
class Thresholds:
    min_seconds: float
    max_straightline: float
    alpha: float
    min_controls: int
    max_repeat_difference: float
    # Without controls to wait for, a verdict still waits for this many answers: one fast
    # answer is no evidence of a careless rater.
    min_answers: int = 0


@dataclass(frozen=True)
class Answer:
    """One scored answer of the rater, in the order given."""

    kind: str  # normal | repeat | bad_reference
    unit_id: int
    score: int
    seconds: float


@dataclass
class Verdict:
    status: str
    reasons: list[str] = field(default_factory=list)
    details: dict[str, object] = field(default_factory=dict)


def _z_summary(normal: Sequence[Answer]) -> dict[str, object]:
    scores = np.array([a.score for a in normal], dtype=float)
    if scores.size == 0:
        return {"n": 0, "mean": None, "sd": None}
    return {"n": int(scores.size), "mean": float(scores.mean()), "sd": float(scores.std())}


def _z(score: float, summary: dict[str, object]) -> float:
    sd = summary["sd"]
    mean = summary["mean"]
    if not isinstance(sd, float) or not isinstance(mean, float) or sd == 0:
        return 0.0
    return (score - mean) / sd


def bad_reference_test(
    bad: Sequence[float], base: Sequence[float], alpha: float
) -> dict[str, object]:
    """One-sided Mann–Whitney U: do bad references score lower than their originals?

    Returns U, the p-value (None without data) and whether p < alpha. Identical scores in both
    groups give p = 1: a rater who cannot tell a broken reply from a good one fails.
    """
    if not bad or not base:
        return {"n": len(bad), "u": None, "p": None, "significant": False}
    from scipy.stats import mannwhitneyu  # scipy.stats takes ~0.8 s to import: when needed

    result = mannwhitneyu(bad, base, alternative="less")
    p = float(result.pvalue)
    p = 1.0 if math.isnan(p) else p
    return {"n": len(bad), "u": float(result.statistic), "p": p, "significant": p < alpha}


def straightline_share(scores: Sequence[int]) -> float:
    """The share of answers (after the first) that repeat the previous score."""
    if len(scores) < 2:
        return 0.0
    same = sum(1 for before, now in pairwise(scores) if before == now)
    return same / (len(scores) - 1)


def _pairs(answers: Sequence[Answer], kind: str, first: dict[int, int]) -> list[tuple[int, int]]:
    """(control score, normal score of the same reference) for each control of `kind`."""
    return [(a.score, first[a.unit_id]) for a in answers if a.kind == kind and a.unit_id in first]


def assess(answers: Sequence[Answer], limits: Thresholds) -> Verdict:
    """The verdict on a rater from their scored answers (oldest first)."""
    normal = [a for a in answers if a.kind == "normal"]
    first = {a.unit_id: a.score for a in normal}
    summary = _z_summary(normal)
    reasons: list[str] = []

    bad_pairs = _pairs(answers, "bad_reference", first)
    test = bad_reference_test([b for b, _ in bad_pairs], [o for _, o in bad_pairs], limits.alpha)
    if bad_pairs:
        gaps = [_z(o, summary) - _z(b, summary) for b, o in bad_pairs]
        test["z_gap"] = float(np.mean(gaps))  # how many of the rater's SDs bad ones score lower
    # Below the minimum the test cannot reach significance yet: that is no finding.
    enough = len(bad_pairs) >= max(1, limits.min_controls)
    if enough and not test["significant"]:
        reasons.append(
            f"Did not score the {len(bad_pairs)} bad references lower than their originals "
            f"(Mann–Whitney p = {test['p']:.3f}, needs < {limits.alpha:g})."
        )

    repeats = _pairs(answers, "repeat", first)
    repeat_difference = float(np.mean([abs(r - o) for r, o in repeats])) if repeats else None
    if repeat_difference is not None and repeat_difference > limits.max_repeat_difference:
        reasons.append(
            f"Repeated items differed by {repeat_difference:.2f} points on average "
            f"(at most {limits.max_repeat_difference:g} allowed, {len(repeats)} repeats)."
        )

    median_seconds = median(a.seconds for a in answers) if answers else None
    if median_seconds is not None and median_seconds < limits.min_seconds:
        reasons.append(
            f"Answered too fast: {median_seconds:.1f} s per rating in the median "
            f"(at least {limits.min_seconds:g} s needed)."
        )

    scores = [a.score for a in answers]
    share = straightline_share(scores) if len(scores) >= STRAIGHTLINE_MIN_RATINGS else None
    if share is not None and share > limits.max_straightline:
        reasons.append(
            f"Straight-lining: {share:.0%} of ratings repeat the previous score "
            f"(at most {limits.max_straightline:.0%} allowed)."
        )

    details: dict[str, object] = {
        "ratings": len(answers),
        "scores": summary,
        "bad_references": test,
        "repeats": {"n": len(repeats), "mean_difference": repeat_difference},
        "median_seconds": median_seconds,
        "straightline_share": share,
    }
    if len(bad_pairs) < limits.min_controls:
        waiting = f"Waiting for bad references: {len(bad_pairs)} of {limits.min_controls} rated."
        # Problems found so far are shown, but nothing is decided on them yet.
        return Verdict(PENDING, [waiting, *reasons], details)
    if len(answers) < limits.min_answers:
        waiting = f"Waiting for answers: {len(answers)} of {limits.min_answers} given."
        return Verdict(PENDING, [waiting, *reasons], details)
    return Verdict(FAILED if reasons else PASSED, reasons, details)
