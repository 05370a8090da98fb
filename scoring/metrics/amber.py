"""AMBER(1,4) of Chen & Kuhn 2011 (papers/002…), the variant without linguistic resources.

``AMBER = score × penalty`` (eq. 1), computed per input variant and averaged (section 2.5):

* **score** (eqs. 2–9): ``θ1·AvgP(N) + θ2·Fmean(N, M, α) + (1-θ1-θ2)·AvgF(N, α)`` with
  N = 4, M = 1, α = 0.9, θ1 = 0.3, θ2 = 0.5; ``Fmean = P·R / (α·P + (1-α)·R)``.
* **penalty** (eq. 10): ``Π pen_i^{w_i}`` over the ten penalties of section 2.2 with Table 2's
  weights (SBP .30, SRP .10, CSBP .15, CSRP .05, SWDP .10, LWDP .20, CKP 1.00, CTP .80,
  NSCP .50, NKCP 2.00); CKP = 1 - γ·(#chunks/#word matches)^β with β = 3, γ = 0.1 and
  #chunks = #word matches - #bigram matches (eq. 13).
* **matching** (section 2.4): n-gram, fixed-gap and flexible-gap n-grams, equally weighted.
* **input variants** (section 2.5): 1 (tokenized, lowercased) and 4 (split type 1: a word of
  more than 4 letters becomes its first 4 and its last 2 letters, "gangs" → "gang" + "gs").
  The paper's default AMBER(1,4,6) also uses variant 6 (split into English prefix, root and
  suffix from a list on the Internet), which we do not have: it is left out, so this is the
  paper's AMBER(1,4), "for a purist" (section 3.4).

Choices where the paper leaves room:

* **Several references**: per item, the one reference whose length (variant-1 tokens) is
  closest to the hypothesis (ties → shorter), the rule the paper gives for SBP, is used for
  every statistic; tf-idf weighting (section 2.3) is off, as in the paper's default.
* **Corpus level**: precision, recall, length penalties, CKP, CTP, SWDP and LWDP use counts
  summed over the test set (the paper's SBP/SRP sums and its two-sentence CKP/CTP examples);
  NSCP and NKCP average the per-sentence correlations.
* **Equal weighting of matching strategies**: p(n) is the mean of the three strategies'
  corpus precisions (gapped strategies are precision-only; for n = 1 all three are unigram
  precision); recall r(n) comes from n-gram matching only.
* **Gapped n-grams**: an n-gram (n ≥ 2) interrupted by one gap at any of its n-1 inner
  positions; the gap is exactly one word (fixed-gap "w1 [] w2") or one or more words
  (flexible-gap "w1 * w2"); matches are clipped counts of (words, gap position) patterns.
* **Spearman** (eq. 16) follows the paper's formula and worked example:
  ``ρ = 1 - Σd² / (n(n²-1))`` (no factor 6, so [1,3,4,2] → 0.90). Word correspondences:
  the k-th occurrence of a word in the hypothesis goes with its k-th occurrence in the
  reference. Fewer than 2 common words: ρ = τ = 1 (nothing is out of order).
* **CTP** (eq. 14): ``exp(-1/(N-1) Σ_{n=2..N} (1 - q_n))``, ``q_n = #n-gram matches /
  (#(n-1)-gram matches - #segments)`` clipped to [0, 1], q_n = 1 when the denominator ≤ 0.
* **SWDP/LWDP** (eq. 15): short words have fewer than 4 characters, long ones more than 3;
  ``|a - b|`` is summed per sentence over the test set (an excess in one sentence cannot
  cancel a shortfall in another), divided by the reference word count (at least 1).
* **Characters** (CSBP/CSRP): the characters of the variant's tokens, spaces excluded.
* Zero denominators give 0 for precision, recall and F-measures, and 1 for a penalty whose
  ratio is undefined.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from . import __version__
from .base import Metric, OptionSpec, RefItem, ScoreResult
from .nist import TOKENIZERS
from .registry import register
from .tokenized import TokenIdRefs, hypothesis_tokens, tokenize_references

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
        min(len(hyp), len(ref)), max(len(hyp), len(ref)), hc, rc, min(hc, rc), max(hc, rc)
    )  # fmt: skip
    short_h = sum(len(t) < 4 for t in hyp)
    short_r = sum(len(t) < 4 for t in ref)
    row[SHORT] = abs(short_h - short_r)
    row[LONG] = abs((len(hyp) - short_h) - (len(ref) - short_r))
    row[RHO], row[TAU], _ = rank_correlations(hyp, ref)
    row[SEGS] = 1.0
    return row


def _div(num: np.ndarray, den: np.ndarray, default: float = 0.0) -> np.ndarray:
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), default)


def _ratio_penalty(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """exp(1 - num/den) with the convention 1 when den = 0 = num, 0 when den = 0 < num."""
    with np.errstate(over="ignore"):
        value = np.exp(1.0 - _div(num, den, 1.0))
    return np.where(den > 0, value, np.where(num > 0, 0.0, 1.0))


def variant_parts(block: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(score, {penalty name: value}) from one variant's summed block of shape ``(..., BLOCK)``."""
    s = np.moveaxis(np.asarray(block, dtype=np.float64), -1, 0)
    m, h, r = s[MATCH : MATCH + N], s[HYP : HYP + N], s[REF : REF + N]
    p_ngram = _div(m, h)
    p_fix = np.concatenate([p_ngram[:1], _div(s[FIX_M : FIX_M + N - 1], s[FIX_H : FIX_H + N - 1])])
    p_flx = np.concatenate([p_ngram[:1], _div(s[FLX_M : FLX_M + N - 1], s[FLX_H : FLX_H + N - 1])])
    p = (p_ngram + p_fix + p_flx) / 3.0
    rec = _div(m, r)
    avg_p = np.prod(p, axis=0) ** (1.0 / N)
    big_p, big_r = p.mean(axis=0), rec[:M].mean(axis=0)
    fmean = _div(big_p * big_r, ALPHA * big_p + (1 - ALPHA) * big_r)
    avg_f = _div(p * rec, ALPHA * p + (1 - ALPHA) * rec).mean(axis=0)
    score = THETA1 * avg_p + THETA2 * fmean + (1 - THETA1 - THETA2) * avg_f
    segs = s[SEGS]
    chunks = np.maximum(m[0] - m[1], 0.0)
    cont = [np.clip(_div(m[n], m[n - 1] - segs, 1.0), 0.0, 1.0) for n in range(1, N)]
    ref_words = np.maximum(r[0], 1.0)
    pens = {
        "sbp": _ratio_penalty(r[0], s[MIN_W]),
        "srp": _ratio_penalty(s[MAX_W], r[0]),
        "csbp": _ratio_penalty(s[REF_C], s[MIN_C]),
        "csrp": _ratio_penalty(s[MAX_C], s[REF_C]),
        "swdp": np.exp(-s[SHORT] / ref_words),
        "lwdp": np.exp(-s[LONG] / ref_words),
        "ckp": 1.0 - CKP_GAMMA * _div(chunks, m[0]) ** CKP_BETA,
        "ctp": np.exp(-sum(1.0 - q for q in cont) / (N - 1)),
        "nscp": (1.0 + _div(s[RHO], segs, 1.0)) / 2.0,
        "nkcp": (1.0 + _div(s[TAU], segs, 1.0)) / 2.0,
    }
    return score, pens


def variant_amber(block: np.ndarray) -> np.ndarray:
    """score × Π pen^w for one variant's summed statistics, shape ``(..., BLOCK)`` → ``(...)``."""
    score, pens = variant_parts(block)
    penalty = np.ones_like(score)
    for key, weight in PENALTY_WEIGHTS.items():
        penalty = penalty * pens[key] ** weight
    return score * penalty


def closest_references(refs: TokenIdRefs, hyp_lens: np.ndarray) -> np.ndarray:
    """Per item, the reference whose length is closest to its hypothesis's ``hyp_lens`` (ties:
    the shorter, then the first), as a reference number of ``refs``."""
    item, ref = refs.pairs()
    distance = np.abs(refs.lens[ref] - hyp_lens[item])
    # Sorted by item, then distance, length and position: the first of each item wins.
    order = np.lexsort((ref, refs.lens[ref], distance, item))
    first = np.r_[True, item[order][1:] != item[order][:-1]] if len(order) else order.astype(bool)
    return ref[order[first]]


@register
class Amber(Metric):
    """AMBER(1,4): stats per item are one block of ``BLOCK`` columns per input variant."""

    name: ClassVar[str] = "amber"
    display_name: ClassVar[str] = "AMBER(1,4)"
    description: ClassVar[str] = (
        "AMBER (Chen & Kuhn 2011), variant (1,4) without linguistic resources: precision, "
        "recall and F-measures over n-gram and gapped matches times ten penalties."
    )
    higher_is_better: ClassVar[bool] = True
    uses_weights: ClassVar[bool] = False

    options: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("tokenize", str, "13a", "tokenizer for variant 1", choices=TOKENIZERS),
        OptionSpec("lowercase", bool, True, "lowercase (variant 1 is normalized text)"),
    )

    def __init__(self, **options: Any) -> None:
        """Options: tokenizer for variant 1 (normalized = tokenized and lowercased)."""
        super().__init__(**options)
        self.tokenize = self.opts["tokenize"]
        self.lowercase = self.opts["lowercase"]
        self._nrefs: int | str = 1

    def prepare(self, items: Sequence[RefItem]) -> TokenIdRefs:
        """Tokenize every reference once (variant 1; variant 4 is derived from it)."""
        prepared = tokenize_references(items, self.tokenize, self.lowercase)
        self._nrefs = prepared.nrefs
        return prepared

    def accepts_prepared(self, prepared: Any) -> bool:
        """References tokenized alike (by 4-GRR, say) serve as they are."""
        return isinstance(prepared, TokenIdRefs) and (prepared.tokenize, prepared.lowercase) == (
            self.tokenize, self.lowercase,
        )  # fmt: skip

    def prepared_slice(self, prepared: TokenIdRefs, start: int, stop: int) -> TokenIdRefs:
        return prepared.slice(start, stop)

    def stats(self, hyps: Sequence[str], prepared: TokenIdRefs) -> np.ndarray:
        """Rows of ``len(VARIANTS) · BLOCK`` sum-able statistics per item: per variant, the
        :func:`variant_stats` of the hypothesis and its closest reference, computed for all
        items at once by :func:`amber_batch.amber_stats_batch`."""
        # amber_batch builds on this module's column layout, so it is imported when first used.
        from .amber_batch import amber_stats_batch

        return amber_stats_batch(*self.aligned_words(hyps, prepared))

    def aligned_words(
        self, hyps: Sequence[str], prepared: TokenIdRefs
    ) -> tuple[list[list[str]], list[list[str]]]:
        """Each hypothesis's variant-1 tokens, and those of its item's closest reference."""
        hyp_ids, hyp_lens, new = hypothesis_tokens(hyps, prepared, extend=True)
        self._nrefs = prepared.nrefs
        words = prepared.vocabulary() + new
        ends = np.cumsum(hyp_lens).tolist()
        h1s = [
            [words[t] for t in hyp_ids[a:b].tolist()]
            for a, b in zip([0, *ends[:-1]], ends, strict=True)
        ]
        return h1s, prepared.token_lists(closest_references(prepared, hyp_lens))

    def scores_from_stats(self, summed: np.ndarray) -> np.ndarray:
        """Mean over variants of score × penalty; ``(..., 2·BLOCK)`` → ``(...)``."""
        summed = np.asarray(summed, dtype=np.float64)
        parts = [variant_amber(summed[..., v * BLOCK : (v + 1) * BLOCK]) for v in range(2)]
        return np.mean(parts, axis=0)

    def result(self, summed: np.ndarray, nrefs: int | str | None = None) -> ScoreResult:
        """Score plus each variant's score, penalty and ten penalty values as extras."""
        summed = np.asarray(summed, dtype=np.float64)
        extras: dict[str, object] = {}
        for v, variant in enumerate(VARIANTS):
            block = summed[v * BLOCK : (v + 1) * BLOCK]
            score, pens = variant_parts(block)
            extras[f"variant_{variant}"] = {
                "score": float(score),
                "amber": float(variant_amber(block)),
                "penalties": {k: float(x) for k, x in pens.items()},
            }
        value = float(self.scores_from_stats(summed))
        return ScoreResult(value, self.signature(self._nrefs if nrefs is None else nrefs), extras)

    def signature(self, nrefs: int | str) -> str:
        """E.g. ``amber|nrefs:1|tok:13a|case:lc|variants:1+4|match:ngram+fixgap+flexgap|…``."""
        case = "lc" if self.lowercase else "mixed"
        return (
            f"{self.name}|nrefs:{nrefs}|tok:{self.tokenize}|case:{case}"
            f"|variants:{'+'.join(VARIANTS)}|match:ngram+fixgap+flexgap|ref:closest"
            f"|version:{__version__}"
        )
