"""AMBER's statistics of one (hypothesis, reference) pair: the readable definition.

The column layout of one input variant's block of statistics and :func:`variant_stats`, which
fills it for one pair from the matching strategies of Chen & Kuhn 2011 (section 2.4) and the
counts behind the penalties of section 2.2 (:mod:`.amber` explains every choice).
:mod:`.amber_batch` computes the same rows for many pairs at once, bit for bit.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

N, M, ALPHA, THETA1, THETA2 = 4, 1, 0.9, 0.3, 0.5
CKP_BETA, CKP_GAMMA = 3.0, 0.1
PENALTY_WEIGHTS = {
    "sbp": 0.30, "srp": 0.10, "csbp": 0.15, "csrp": 0.05, "swdp": 0.10,
    "lwdp": 0.20, "ckp": 1.00, "ctp": 0.80, "nscp": 0.50, "nkcp": 2.00,
}  # fmt: skip
VARIANTS = ("1", "4")

# Column offsets inside one variant's block of statistics.
MATCH, HYP, REF = 0, N, 2 * N  # n-gram matches / hypothesis / reference counts, n = 1..N
FIX_M, FIX_H = 3 * N, 4 * N - 1  # fixed-gap matches / hypothesis counts, n = 2..N
FLX_M, FLX_H = 5 * N - 2, 6 * N - 3  # flexible-gap matches / hypothesis counts, n = 2..N
(MIN_W, MAX_W, HYP_C, REF_C, MIN_C, MAX_C, SHORT, LONG, RHO, TAU, SEGS) = range(
    7 * N - 4, 7 * N + 7
)
BLOCK = SEGS + 1


def split_type1(tokens: Sequence[str]) -> list[str]:
    """Input variant 4: words longer than 4 letters → first 4 + last 2 ("gangs" → gang, gs)."""
    out: list[str] = []
    for tok in tokens:
        out.extend((tok[:4], tok[-2:]) if len(tok) > 4 else (tok,))
    return out


def rank_correlations(hyp: Sequence[str], ref: Sequence[str]) -> tuple[float, float, int]:
    """Spearman ρ (paper's eq. 16) and Kendall τ (eq. 18) of common words; returns (ρ, τ, n)."""
    slots: dict[str, list[int]] = {}
    for pos, tok in enumerate(ref):
        slots.setdefault(tok, []).append(pos)
    seen: Counter[str] = Counter()
    positions = []
    for tok in hyp:
        k = seen[tok]
        seen[tok] += 1
        if k < len(slots.get(tok, ())):
            positions.append(slots[tok][k])
    return (*rank_vector_correlations(positions), len(positions))


def rank_vector_correlations(positions: Sequence[int]) -> tuple[float, float]:
    """(ρ, τ) of a translation rank vector against 1..n, e.g. [1, 3, 4, 2] → (0.9, 0.333…)."""
    n = len(positions)
    if n < 2:
        return 1.0, 1.0
    ranks = np.argsort(np.argsort(positions))
    rho = 1.0 - float(np.sum((ranks - np.arange(n)) ** 2)) / (n * (n * n - 1))
    pos = np.asarray(positions)
    increasing = int(np.sum(np.triu(pos[None, :] > pos[:, None], k=1)))
    tau = 2.0 * increasing / (n * (n - 1) / 2) - 1.0
    return rho, tau


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[k : k + n]) for k in range(len(tokens) - n + 1))


def _positions(tokens: Sequence[str], order: int) -> list[list[tuple[str, ...]]]:
    """``grams[n][s]`` = the n-gram starting at position s, for n = 1..order (index 0 unused)."""
    return [[]] + [
        [tuple(tokens[s : s + n]) for s in range(len(tokens) - n + 1)] for n in range(1, order + 1)
    ]


def _gapped(
    grams: list[list[tuple[str, ...]]], n: int, flexible: bool, common: list[set[tuple[str, ...]]]
) -> Counter[Any]:
    """(left a-gram, right b-gram) patterns, a + b = n, with a gap of 1 word (fixed) or ≥ 1 word
    (flexible) between them; ``grams`` from :func:`_positions`.

    Only patterns whose two parts occur in ``common[a]`` and ``common[b]`` (n-grams found in both
    sentences) are listed: no other pattern can match.
    """
    out: Counter[Any] = Counter()
    for a in range(1, n):
        b = n - a
        rights = [t for t, g in enumerate(grams[b]) if g in common[b]]
        for s, left in enumerate(grams[a]):
            if left not in common[a]:
                continue
            lo = s + a + 1
            if flexible:
                for t in rights[bisect_left(rights, lo) :]:
                    out[left, grams[b][t]] += 1
            elif lo < len(grams[b]) and grams[b][lo] in common[b]:
                out[left, grams[b][lo]] += 1
    return out


def _gapped_total(size: int, n: int, flexible: bool) -> int:
    """Number of gapped n-grams in a sentence of ``size`` words (gap at n-1 positions)."""
    free = max(size - n, 0)
    return (n - 1) * (free * (free + 1) // 2 if flexible else free)


def _clipped(hyp: Counter[Any], ref: Counter[Any]) -> int:
    return sum(min(c, ref[g]) for g, c in hyp.items() if g in ref)


def _chars(tokens: Sequence[str]) -> int:
    return sum(len(t) for t in tokens)


def variant_stats(hyp: Sequence[str], ref: Sequence[str]) -> np.ndarray:
    """One variant's block of sufficient statistics for a (hypothesis, reference) token pair."""
    row = np.zeros(BLOCK)
    hyp_grams, ref_grams = _positions(hyp, N - 1), _positions(ref, N - 1)
    common: list[set[tuple[str, ...]]] = [set()]
    for n in range(1, N + 1):
        hyp_n, ref_n = _ngrams(hyp, n), _ngrams(ref, n)
        row[MATCH + n - 1] = _clipped(hyp_n, ref_n)
        row[HYP + n - 1] = max(len(hyp) - n + 1, 0)
        row[REF + n - 1] = max(len(ref) - n + 1, 0)
        common.append(set(hyp_n) & set(ref_n))
    for n in range(2, N + 1):
        for col_m, col_h, flexible in ((FIX_M, FIX_H, False), (FLX_M, FLX_H, True)):
            hyp_g = _gapped(hyp_grams, n, flexible, common)
            row[col_m + n - 2] = _clipped(hyp_g, _gapped(ref_grams, n, flexible, common))
            row[col_h + n - 2] = _gapped_total(len(hyp), n, flexible)
    hc, rc = _chars(hyp), _chars(ref)
    row[[MIN_W, MAX_W, HYP_C, REF_C, MIN_C, MAX_C]] = (
        min(len(hyp), len(ref)),
        max(len(hyp), len(ref)),
        hc,
        rc,
        min(hc, rc),
        max(hc, rc),
    )
    short_h = sum(len(t) < 4 for t in hyp)
    short_r = sum(len(t) < 4 for t in ref)
    row[SHORT] = abs(short_h - short_r)
    row[LONG] = abs((len(hyp) - short_h) - (len(ref) - short_r))
    row[RHO], row[TAU], _ = rank_correlations(hyp, ref)
    row[SEGS] = 1.0
    return row
