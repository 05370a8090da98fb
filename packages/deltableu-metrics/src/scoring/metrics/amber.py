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

from collections.abc import Sequence
from typing import Any

import numpy as np

from .amber_batch import amber_stats_batch
from .amber_pairs import (
    ALPHA,
    BLOCK,
    CKP_BETA,
    CKP_GAMMA,
    FIX_H,
    FIX_M,
    FLX_H,
    FLX_M,
    HYP,
    LONG,
    MATCH,
    MAX_C,
    MAX_W,
    MIN_C,
    MIN_W,
    PENALTY_WEIGHTS,
    REF,
    REF_C,
    RHO,
    SEGS,
    SHORT,
    TAU,
    THETA1,
    THETA2,
    VARIANTS,
    M,
    N,
)
from .base import OptionSpec
from .registry import register
from .tokenized import TokenIdMetric, TokenIdRefs, hypothesis_tokens
from .tokenizers import ALL_TOKENIZERS


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
    out: np.ndarray = score * penalty
    return out


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
class Amber(TokenIdMetric):
    """AMBER (Chen & Kuhn 2011), variant (1,4) without linguistic resources: precision,
    recall and F-measures over n-gram and gapped matches times ten penalties."""

    name = "amber"
    display_name = "AMBER(1,4)"
    options = (
        OptionSpec("tokenize", str, "13a", "tokenizer for variant 1", choices=ALL_TOKENIZERS),
        OptionSpec("lowercase", bool, True, "lowercase (variant 1 is normalized text)"),
    )

    def stats(self, hyps: Sequence[str], prepared: TokenIdRefs) -> np.ndarray:
        """Rows of ``len(VARIANTS) · BLOCK`` sum-able statistics per item: per variant, the
        :func:`variant_stats` of the hypothesis and its closest reference, computed for all
        items at once by :func:`amber_batch.amber_stats_batch`."""
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
        out: np.ndarray = np.mean(parts, axis=0)
        return out

    def result_extras(self, summed: np.ndarray) -> dict[str, Any]:
        """Each variant's score, AMBER and ten penalty values."""
        extras: dict[str, Any] = {}
        for v, variant in enumerate(VARIANTS):
            block = summed[v * BLOCK : (v + 1) * BLOCK]
            score, pens = variant_parts(block)
            extras[f"variant_{variant}"] = {
                "score": float(score),
                "amber": float(variant_amber(block)),
                "penalties": {k: float(x) for k, x in pens.items()},
            }
        return extras

    def signature_fields(self) -> list[str]:
        """E.g. ``amber|nrefs:1|tok:13a|case:lc|variants:1+4|match:ngram+fixgap+flexgap|…``."""
        return [f"variants:{'+'.join(VARIANTS)}", "match:ngram+fixgap+flexgap", "ref:closest"]
