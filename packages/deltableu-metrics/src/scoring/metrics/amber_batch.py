"""AMBER's per-item statistics for many (hypothesis, reference) pairs at once, with numpy.

Row p of :func:`variant_stats_batch` equals ``amber_pairs.variant_stats(hyps[p], refs[p])``
exactly; amber_pairs.py keeps that per-pair function as the readable definition (matching
strategies of Chen & Kuhn 2011, section 2.4; counts behind the penalties of section 2.2). Here
every n-gram, gapped pattern and word correspondence of a batch becomes an integer key that
carries its pair, so one ``np.unique`` per kind of pattern counts it for all pairs.

Layout: the words of all hypotheses, then of all references, in one flat array of positions;
sentence p is hypothesis p, sentence P + p is reference p.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, pairwise

import numpy as np

from . import amber_pairs as cols
from .amber_pairs import BLOCK, N, split_type1

# Work and memory of a chunk grow with its squared sentence lengths (flexible-gap patterns and
# Kendall's pairs of common words). ~1,000 pairs of 12-word sentences: small enough for the CPU
# caches (larger chunks are slower), large enough that numpy's per-call cost does not show.
CHUNK_COST = 300_000


def variant_stats_batch(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> np.ndarray:
    """One variant's statistics for each pair (hyps[p], refs[p]) of token lists.

    Returns a float array of shape ``(len(hyps), BLOCK)`` whose row p is exactly
    ``variant_stats(hyps[p], refs[p])``.
    """
    out = np.zeros((_pair_count(hyps, refs), BLOCK))
    for chunk in _chunks(hyps, refs):
        out[chunk] = _stats(_layout(_encode(hyps[chunk], refs[chunk])))
    return out


def amber_stats_batch(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> np.ndarray:
    """Both variants' statistics for each pair of variant-1 token lists (section 2.5).

    Returns shape ``(len(hyps), 2 · BLOCK)``: row p is exactly ``variant_stats(hyps[p],
    refs[p])`` followed by ``variant_stats(split_type1(hyps[p]), split_type1(refs[p]))``.
    """
    out = np.zeros((_pair_count(hyps, refs), 2 * BLOCK))
    for chunk in _chunks(hyps, refs):
        words = _encode(hyps[chunk], refs[chunk])
        out[chunk, :BLOCK] = _stats(_layout(words))
        out[chunk, BLOCK:] = _stats(_layout(_split_type1(words)))
    return out


def _pair_count(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> int:
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses for {len(refs)} references")
    return len(hyps)


def _chunks(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> Iterator[slice]:
    """Consecutive slices of pairs of about ``CHUNK_COST`` work each (a costlier pair alone)."""
    lh = np.fromiter(map(len, hyps), np.int64, len(hyps))
    lr = np.fromiter(map(len, refs), np.int64, len(refs))
    cost = 1 + lh * lh + lr * lr
    chunk_of = (np.cumsum(cost) - cost) // CHUNK_COST
    bounds = [0, *(np.flatnonzero(np.diff(chunk_of)) + 1).tolist(), len(hyps)]
    for lo, hi in pairwise(bounds):
        if hi > lo:
            yield slice(lo, hi)


@dataclass(frozen=True)
class _Words:
    """P hypotheses then P references as word ids in one flat array."""

    ids: np.ndarray
    lengths: np.ndarray  # words per sentence
    vocab: list[str]  # the word of each id


def _encode(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]]) -> _Words:
    sentences = [*hyps, *refs]
    words = list(chain.from_iterable(sentences))
    vocab = {w: i for i, w in enumerate(dict.fromkeys(words))}
    return _Words(
        ids=np.fromiter(map(vocab.__getitem__, words), np.int64, len(words)),
        lengths=np.fromiter(map(len, sentences), np.int64, len(sentences)),
        vocab=list(vocab),
    )


def _split_type1(words: _Words) -> _Words:
    """Input variant 4 of every sentence, splitting each distinct word once."""
    pieces = [split_type1((w,)) for w in words.vocab]
    vocab = {p: i for i, p in enumerate(dict.fromkeys(chain.from_iterable(pieces)))}
    piece_ids = np.fromiter(map(vocab.__getitem__, chain.from_iterable(pieces)), np.int64)
    count = np.fromiter(map(len, pieces), np.int64, len(pieces))
    first = np.cumsum(count) - count
    per_word = count[words.ids]
    sentence = np.repeat(np.arange(len(words.lengths)), words.lengths)
    return _Words(
        ids=piece_ids[_ranges(first[words.ids], per_word)],
        lengths=np.bincount(sentence, weights=per_word, minlength=len(words.lengths)).astype(
            np.int64
        ),
        vocab=list(vocab),
    )


@dataclass(frozen=True)
class _Layout:
    """Positions of all words with what the counts need: sentence, pair, sentence end."""

    ids: np.ndarray  # word id per position (ids shared by all sentences)
    chars: np.ndarray  # characters of the word at each position
    sentence: np.ndarray  # sentence per position: p, or P + p for reference p
    pair: np.ndarray  # pair per position
    end: np.ndarray  # end (exclusive) of each position's sentence
    lengths: np.ndarray  # words per sentence
    n_hyp: int  # positions [0, n_hyp) are hypothesis words
    n_pairs: int
    n_vocab: int


def _layout(words: _Words) -> _Layout:
    n_pairs = len(words.lengths) // 2
    sentence = np.repeat(np.arange(len(words.lengths)), words.lengths)
    return _Layout(
        ids=words.ids,
        chars=np.fromiter(map(len, words.vocab), np.int64, len(words.vocab))[words.ids],
        sentence=sentence,
        pair=sentence % n_pairs,
        end=np.cumsum(words.lengths)[sentence],
        lengths=words.lengths,
        n_hyp=int(words.lengths[:n_pairs].sum()),
        n_pairs=n_pairs,
        n_vocab=len(words.vocab),
    )


def _stats(lay: _Layout) -> np.ndarray:
    out = np.zeros((lay.n_pairs, BLOCK))
    _fill_counts(lay, out)
    gram_ids = _gram_ids(lay)
    grams = {n: _pair_grams(lay, gram_ids[n]) for n in range(1, N + 1)}
    for n in range(1, N + 1):
        out[:, cols.MATCH + n - 1] = grams[n].matches
    for n in range(2, N + 1):
        for first, flexible in ((cols.FIX_M, False), (cols.FLX_M, True)):
            out[:, first + n - 2] = _gapped_matches(lay, grams, gram_ids, n, flexible)
    out[:, cols.RHO], out[:, cols.TAU] = _rank_correlations(lay, grams[1].key)
    return out


def _fill_counts(lay: _Layout, out: np.ndarray) -> None:
    """Columns that need no matching: n-gram totals, lengths, characters, word classes."""
    p = lay.n_pairs
    lh, lr = lay.lengths[:p], lay.lengths[p:]
    for n in range(1, N + 1):
        out[:, cols.HYP + n - 1] = np.maximum(lh - n + 1, 0)
        out[:, cols.REF + n - 1] = np.maximum(lr - n + 1, 0)
    for n in range(2, N + 1):
        out[:, cols.FIX_H + n - 2] = _gapped_totals(lh, n, flexible=False)
        out[:, cols.FLX_H + n - 2] = _gapped_totals(lh, n, flexible=True)
    chars = np.bincount(lay.sentence, weights=lay.chars, minlength=2 * p)
    ch, cr = chars[:p], chars[p:]
    out[:, cols.MIN_W], out[:, cols.MAX_W] = np.minimum(lh, lr), np.maximum(lh, lr)
    out[:, cols.HYP_C], out[:, cols.REF_C] = ch, cr
    out[:, cols.MIN_C], out[:, cols.MAX_C] = np.minimum(ch, cr), np.maximum(ch, cr)
    short = np.bincount(lay.sentence, weights=lay.chars < 4, minlength=2 * p)
    sh, sr = short[:p], short[p:]
    out[:, cols.SHORT] = np.abs(sh - sr)
    out[:, cols.LONG] = np.abs((lh - sh) - (lr - sr))
    out[:, cols.SEGS] = 1.0


def _gapped_totals(size: np.ndarray, n: int, flexible: bool) -> np.ndarray:
    """``amber._gapped_total`` for an array of sentence sizes."""
    free = np.maximum(size - n, 0)
    out: np.ndarray = (n - 1) * (free * (free + 1) // 2 if flexible else free)
    return out


def _gram_ids(lay: _Layout) -> dict[int, np.ndarray]:
    """``ids[n][s]``: batch-wide id of the n-gram at position s, -1 past its sentence's end."""
    pos = np.arange(len(lay.ids))
    out = {1: lay.ids}
    for n in range(2, N + 1):
        start = pos[pos + n <= lay.end]
        # Compressed at each order, so the joined code stays below positions × vocabulary.
        joined = out[n - 1][start] * lay.n_vocab + lay.ids[start + n - 1]
        out[n] = np.full(len(pos), -1)
        out[n][start] = np.unique(joined, return_inverse=True)[1]
    return out


@dataclass(frozen=True)
class _Clip:
    matches: np.ndarray  # per pair: Σ min(hypothesis count, reference count) over its keys
    inverse: np.ndarray  # per item: dense id of its key
    both: np.ndarray  # per item: its key occurs in the hypothesis and in the reference


def _clip(keys: np.ndarray, pairs: np.ndarray, n_hyp: int, n_pairs: int) -> _Clip:
    """Clipped counts of keys carrying their pair; items ``[0, n_hyp)`` are the hypotheses'."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    hyp = np.bincount(inverse[:n_hyp], minlength=len(uniq))
    ref = np.bincount(inverse[n_hyp:], minlength=len(uniq))
    key_pair = np.zeros(len(uniq), np.int64)
    key_pair[inverse] = pairs
    matches = np.bincount(key_pair, weights=np.minimum(hyp, ref), minlength=n_pairs)
    return _Clip(matches, inverse, ((hyp > 0) & (ref > 0))[inverse])


@dataclass(frozen=True)
class _PairGrams:
    """One order's n-grams per pair, by position (the ``common`` sets of ``amber._gapped``)."""

    key: np.ndarray  # dense id of (pair, n-gram); -1 where no n-gram starts
    common: np.ndarray  # the n-gram occurs in both sentences of its pair
    matches: np.ndarray  # clipped n-gram matches per pair


def _pair_grams(lay: _Layout, gram_ids: np.ndarray) -> _PairGrams:
    start = np.flatnonzero(gram_ids >= 0)
    # Gram ids are below the number of positions (order 1: below the vocabulary size).
    keys = lay.pair[start] * (len(lay.ids) + 1) + gram_ids[start]
    clip = _clip(keys, lay.pair[start], int(np.searchsorted(start, lay.n_hyp)), lay.n_pairs)
    key = np.full(len(lay.ids), -1)
    key[start] = clip.inverse
    common = np.zeros(len(lay.ids), bool)
    common[start] = clip.both
    return _PairGrams(key, common, clip.matches)


def _gapped_matches(
    lay: _Layout,
    grams: dict[int, _PairGrams],
    gram_ids: dict[int, np.ndarray],
    n: int,
    flexible: bool,
) -> np.ndarray:
    """Clipped gapped n-gram matches per pair: patterns (a, left a-gram, right b-gram)."""
    total = np.zeros(lay.n_pairs)
    for a in range(1, n):
        b = n - a
        left, right = _gapped_positions(lay, grams[a].common, grams[b].common, a, b, flexible)
        # The left part's key carries the pair; patterns of different a never meet.
        keys = grams[a].key[left] * (len(lay.ids) + 1) + gram_ids[b][right]
        n_hyp = int(np.searchsorted(left, lay.n_hyp))
        total += _clip(keys, lay.pair[left], n_hyp, lay.n_pairs).matches
    return total


def _gapped_positions(
    lay: _Layout, left_ok: np.ndarray, right_ok: np.ndarray, a: int, b: int, flexible: bool
) -> tuple[np.ndarray, np.ndarray]:
    """(s, t) for an a-gram at s and a b-gram at t in one sentence, both ``ok``, with a gap of
    one word (t = s + a + 1) or of at least one (t ≥ s + a + 1); s ascending."""
    lefts = np.flatnonzero(left_ok)
    last = lay.end[lefts] - b  # last start of a b-gram in the left part's sentence
    if not flexible:
        t = lefts + a + 1
        keep = t <= last
        keep[keep] = right_ok[t[keep]]
        return lefts[keep], t[keep]
    rights = np.flatnonzero(right_ok)
    lo = np.searchsorted(rights, lefts + a + 1)
    count = np.maximum(np.searchsorted(rights, last, side="right") - lo, 0)
    return np.repeat(lefts, count), rights[_ranges(lo, count)]


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(start, start + count)`` for each (start, count)."""
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    out: np.ndarray = np.repeat(starts, counts) + offsets
    return out


def _rank_correlations(lay: _Layout, word_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ρ, τ) per pair as ``amber.rank_correlations``, with the same float operations."""
    hyp_pos, ref_pos = _correspondences(lay, word_key)
    pair = lay.pair[hyp_pos]
    n = np.bincount(pair, minlength=lay.n_pairs)
    # Pairs' reference positions are increasing from pair to pair, so one global rank is the
    # rank within the pair shifted by the same offset as the index within the pair.
    rank = np.empty(len(ref_pos), np.int64)
    rank[np.argsort(ref_pos)] = np.arange(len(ref_pos))
    squares = np.bincount(pair, weights=(rank - np.arange(len(ref_pos))) ** 2, minlength=len(n))
    increasing = _increasing_pairs(pair, ref_pos, n)
    # Counts are exact integers in float64, so these are the reference's very divisions (float
    # by int, true division of ints) and give the same bits.
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = 1.0 - squares / (n * (n * n - 1))
        tau = 2.0 * increasing / (n * (n - 1) / 2) - 1.0
    few = n < 2
    rho[few] = tau[few] = 1.0
    return rho, tau


def _correspondences(lay: _Layout, word_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(hypothesis position, reference position) of each common word, in hypothesis order:
    the k-th occurrence of a word in the hypothesis goes with its k-th one in the reference."""
    side = (np.arange(len(word_key)) >= lay.n_hyp).astype(np.int64)
    code = word_key * (len(word_key) + 1) + _occurrence(word_key * 2 + side)
    hyp_code, ref_code = code[: lay.n_hyp], code[lay.n_hyp :]
    order = np.argsort(ref_code)
    at = np.minimum(np.searchsorted(ref_code[order], hyp_code), max(len(ref_code) - 1, 0))
    found = ref_code[order][at] == hyp_code if len(ref_code) else np.zeros(lay.n_hyp, bool)
    return np.flatnonzero(found), lay.n_hyp + order[at[found]]


def _occurrence(keys: np.ndarray) -> np.ndarray:
    """For each item, how many earlier items have the same key (k of its k-th occurrence)."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    k = np.empty(len(keys), np.int64)
    k[order] = np.arange(len(keys)) - np.searchsorted(sorted_keys, sorted_keys)
    return k


def _increasing_pairs(pair: np.ndarray, ref_pos: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Per pair, index pairs i < j of its correspondences with ``ref_pos[j] > ref_pos[i]``."""
    index = np.arange(len(pair))
    later = np.cumsum(n)[pair] - index - 1  # correspondences after i in the same pair
    first = np.repeat(index, later)
    second = _ranges(index + 1, later)
    return np.bincount(pair[first], weights=ref_pos[second] > ref_pos[first], minlength=len(n))
