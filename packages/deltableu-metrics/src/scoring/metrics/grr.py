"""4-GRR, the 4-gram recognition rate of Chiang & DeNeefe (papers/003…, section 4, eq. 6).

For a candidate c and a reference r::

    4-GRR = max over monotone alignments of (Σ_{k=1..4} M_k - α·I - β·D) / Σ_{k=1..4} |g_k(r)|

computed as a Viterbi search through the paper's automaton with states (i, m), 0 ≤ i ≤ |r|,
0 ≤ m ≤ 3 (m = consecutive matches before this point, capped at 3), initial state (0, 0) and
final states (|r|, m):

* match ``(i, m) --r_{i+1} : m+1--> (i+1, min(m+1, 3))`` — a run of L matches earns
  1 + 2 + 3 + 4 + 4 + … = the number of 1- to 4-grams it matches;
* deletion ``(i, m) --ε : -β--> (i+1, 0)``, substitution ``(i, m) --★ : 0--> (i+1, 0)``;
* insertion ``(i, m) --★ : -α--> (i, 0)``.

Defaults α = 1, β = 0 (the paper's setting "by analogy with WRR"); the paper's best-correlating
α = -0.9, β = 1 is available through the options. Test-set score = Σ numerators / Σ denominators
(micro-average, as in the paper).

Implementation: the DP runs over candidate positions j, vectorized over all reference positions
and over a batch of (candidate, reference) pairs at once (pairs sorted by length, padded); the
ε-closure of deletions inside one row is a running maximum (``max_{k<i} B[k] - β(i-k)``), so a
row costs O(|r|·4) numpy work and a pair O(|c|·|r|·4) in total.

Choices where the paper leaves room:

* **Several references per item** (the paper scores one reference): we use, per item, the
  reference with the best 4-GRR ratio (ties: the first in the item's order) and add *its*
  numerator and denominator to the test-set sums.
* **Empty references** have denominator 0; they are used only when every reference of the
  item is empty (then the item adds its numerator, -α·|c| at most, and 0 to the denominator).
  A test set whose denominators sum to 0 scores 0.
* The paper reports case-sensitive scores; tokenization is sacrebleu's 13a by default
  (``tokenize``, ``lowercase`` options as for NIST).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import OptionSpec
from .registry import register
from .tokenized import TokenIdMetric, TokenIdRefs, hypothesis_tokens
from .tokenizers import ALL_TOKENIZERS, Segments

_BATCH = 2048  # pairs per DP batch: bounds the (batch, |c|, |r|) match tensor's memory
_NEG = -np.inf


def grr_denominator(ref_len: int | np.ndarray) -> np.ndarray:
    """Σ_{k=1..4} |g_k(r)| (the number of 1- to 4-grams of a reference of length ``ref_len``)."""
    length = np.asarray(ref_len, dtype=np.float64)
    return sum(np.maximum(length - k + 1, 0.0) for k in range(1, 5))  # type: ignore[return-value]


def grr_numerators(cands: Segments, refs: Segments, alpha: float, beta: float) -> np.ndarray:
    """Best path score (Σ M_k - α·I - β·D) of each pair p of candidate segment p and reference
    segment p (token ids; a negative id matches nothing). Returns shape ``(P,)``."""
    count = len(cands.lens)
    if len(refs.lens) != count:
        raise ValueError(f"{count} candidates for {len(refs.lens)} references")
    out = np.empty(count)
    c_len, r_len = cands.lens, refs.lens
    # Pairs of similar lengths share a batch, so little of the padded DP is wasted.
    order = np.lexsort((r_len, c_len))
    for start in range(0, count, _BATCH):
        batch = order[start : start + _BATCH]
        out[batch] = _batch_numerators(
            _pad(cands, batch, -1),
            _pad(refs, batch, -2),
            c_len[batch],
            r_len[batch],
            alpha,
            beta,
        )
    return out


def _pad(segs: Segments, batch: np.ndarray, fill: int) -> np.ndarray:
    """Segments ``batch`` as the rows of a matrix, right-padded with ``fill``."""
    lens = segs.lens[batch]
    width = int(lens.max(initial=0))
    inside = np.arange(width) < lens[:, None]
    arr = np.full((len(batch), width), fill, dtype=np.int64)
    arr[inside] = segs.ids[(segs.starts[batch][:, None] + np.arange(width))[inside]]
    return arr


def _state_max(row: np.ndarray) -> np.ndarray:
    """max over the four states m of a DP row of shape ``(4, pairs, |r| + 1)``."""
    out: np.ndarray = np.maximum(np.maximum(row[0], row[1]), np.maximum(row[2], row[3]))
    return out


def _close_deletions(row: np.ndarray, beta: float, idx: np.ndarray) -> None:
    """Apply chains of deletions (i → i+1 → …, -β each, into m = 0) inside one DP row."""
    best = _state_max(row) + beta * idx
    reach = np.maximum.accumulate(best, axis=1)[:, :-1] - beta * idx[1:]
    np.maximum(row[0, :, 1:], reach, out=row[0, :, 1:])


def _batch_numerators(
    cand: np.ndarray,
    ref: np.ndarray,
    c_len: np.ndarray,
    r_len: np.ndarray,
    alpha: float,
    beta: float,
) -> np.ndarray:
    """The DP for padded candidates and references (one row each). States come first in the
    row's shape (4, pairs, |r| + 1), so each state is one contiguous slab."""
    pairs, width = ref.shape
    idx = np.arange(width + 1, dtype=np.float64)
    rows = np.arange(pairs)
    row = np.full((4, pairs, width + 1), _NEG)
    row[0, :, 0] = 0.0
    _close_deletions(row, beta, idx)
    best = _state_max(row)
    result = np.where(c_len == 0, best[rows, r_len], 0.0)
    for j in range(cand.shape[1]):
        match = cand[:, j, None] == ref
        new = np.full_like(row, _NEG)
        new[0, :, 1:] = best[:, :-1]
        new[1, :, 1:] = np.where(match, row[0, :, :-1] + 1.0, _NEG)
        new[2, :, 1:] = np.where(match, row[1, :, :-1] + 2.0, _NEG)
        run = np.maximum(row[2, :, :-1] + 3.0, row[3, :, :-1] + 4.0)
        new[3, :, 1:] = np.where(match, run, _NEG)
        np.maximum(new[0], best - alpha, out=new[0])
        _close_deletions(new, beta, idx)
        row, best = new, _state_max(new)
        done = c_len == j + 1
        result[done] = best[rows[done], r_len[done]]
    return result


@register
class GRR(TokenIdMetric):
    """4-gram recognition rate (Chiang et al. 2008): monotone alignment rewarding 1-4-gram
    matches, penalising insertions (alpha) and deletions (beta); micro-averaged, best
    reference per item."""

    name = "4grr"
    display_name = "4-GRR"
    options = (
        OptionSpec("alpha", float, 1.0, "reward of a matched n-gram step (the paper's α)"),
        OptionSpec("beta", float, 0.0, "penalty weight of an unmatched word (the paper's β)"),
        OptionSpec("tokenize", str, "13a", "tokenizer", choices=ALL_TOKENIZERS),
        OptionSpec("lowercase", bool, False, "lowercase before scoring"),
    )

    def __init__(self, **options: Any) -> None:
        """Options: insertion penalty α, deletion penalty β, tokenizer, lowercasing."""
        super().__init__(**options)
        self.alpha = float(self.opts["alpha"])
        self.beta = float(self.opts["beta"])

    def stats(self, hyps: Sequence[str], prepared: TokenIdRefs) -> np.ndarray:
        """Rows ``[numerator, denominator]`` of each item's best-scoring reference."""
        num, den, owner = self.pair_rows(hyps, prepared)
        return best_per_item(num, den, owner, len(hyps))

    def pair_rows(
        self, hyps: Sequence[str], prepared: TokenIdRefs
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Numerator, denominator and item of every (hypothesis, reference) pair, item by item
        and in each item's reference order (so a caller may pick among subsets of them)."""
        hyp_ids, hyp_lens, _ = hypothesis_tokens(hyps, prepared)
        self._nrefs = prepared.nrefs
        owner, refs = prepared.pairs()
        hyp_starts = np.cumsum(hyp_lens) - hyp_lens
        cands = Segments(hyp_ids, hyp_starts[owner], hyp_lens[owner])
        ref_segs = Segments(prepared.tokens, prepared.starts[refs], prepared.lens[refs])
        num = grr_numerators(cands, ref_segs, self.alpha, self.beta)
        return num, grr_denominator(ref_segs.lens), owner

    def scores_from_stats(self, summed: np.ndarray) -> np.ndarray:
        """Σ numerator / Σ denominator for shape ``(..., 2)`` (0 where the denominator is 0)."""
        summed = np.asarray(summed, dtype=np.float64)
        num, den = summed[..., 0], summed[..., 1]
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)

    def result_extras(self, summed: np.ndarray) -> dict[str, Any]:
        """Numerator and denominator."""
        return {"numerator": float(summed[0]), "denominator": float(summed[1])}

    def signature_fields(self) -> list[str]:
        """E.g. ``4grr|nrefs:1|tok:13a|case:mixed|alpha:1|beta:0|ref:best|version:…``."""
        return [f"alpha:{self.alpha:g}", f"beta:{self.beta:g}", "ref:best"]


def best_per_item(num: np.ndarray, den: np.ndarray, owner: np.ndarray, n_items: int) -> np.ndarray:
    """Per item, the (num, den) pair with the best ratio (ties: the first); empty references
    (den = 0) rank last. `owner` gives each pair's item, pairs of an item in reference order;
    an item without pairs gets (0, 0)."""
    ratio = np.where(den > 0, num / np.where(den > 0, den, 1.0), _NEG)
    out = np.zeros((n_items, 2))
    if not len(num):
        return out
    # Sorted by item, best ratio first, then position: the first pair of each item wins.
    order = np.lexsort((np.arange(len(num)), -ratio, owner))
    first = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]
    out[owner[first]] = np.column_stack([num[first], den[first]])
    return out
