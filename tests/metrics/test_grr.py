"""4-GRR: hand-worked alignments, the paper's α/β settings, and a brute-force cross-check."""

from __future__ import annotations

import math
import pickle
from itertools import chain
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.metrics import __version__
from scoring.metrics.base import MetricInputError, RefItem, WeightedRef
from scoring.metrics.grr import GRR, Segments, best_per_item, grr_denominator, grr_numerators
from tests.examples import examples


def segments_of(seqs: list[list[int]]) -> Segments:
    """Sequences of token ids as the vectorized DP takes them."""
    lens = np.fromiter(map(len, seqs), np.int64, len(seqs))
    starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
    ids = np.fromiter(chain.from_iterable(seqs), np.int64, int(lens.sum()))
    return Segments(ids, starts, lens)


def brute_force(cand: list[int], ref: list[int], alpha: float, beta: float) -> float:
    """The paper's automaton, state by state, with dictionaries (no vectorization)."""
    size = len(ref)

    def close(states: dict[tuple[int, int], float]) -> dict[tuple[int, int], float]:
        for i in range(size):
            for m in range(4):
                if (i, m) in states:
                    key = (i + 1, 0)
                    states[key] = max(states.get(key, -math.inf), states[(i, m)] - beta)
        return states

    states = close({(0, 0): 0.0})
    for tok in cand:
        new: dict[tuple[int, int], float] = {}
        for (i, m), score in states.items():
            moves = [((i, 0), score - alpha)]
            if i < size:
                moves.append(((i + 1, 0), score))
                if ref[i] == tok:
                    moves.append(((i + 1, min(m + 1, 3)), score + m + 1))
            for key, value in moves:
                new[key] = max(new.get(key, -math.inf), value)
        states = close(new)
    return max(states.get((size, m), -math.inf) for m in range(4))


def pair(cand: str, ref: str, **options: Any) -> tuple[float, float]:
    metric = GRR(**options)
    num, den = metric.stats([cand], metric.prepare([RefItem("1", (WeightedRef(ref),))]))[0]
    return float(num), float(den)


# (candidate, reference, alpha, beta, numerator, denominator); reference "a b c d" has
# 4 + 3 + 2 + 1 = 10 n-grams of orders 1-4.
HAND_WORKED = [
    ("a b c d e", "a b c d e", 1.0, 0.0, 14.0, 14.0),  # identical: 1+2+3+4+4
    ("a b X c d", "a b c d", 1.0, 0.0, 5.0, 10.0),  # insertion: (1+2) - 1 + (1+2)
    ("a b d", "a b c d", 1.0, 0.0, 4.0, 10.0),  # deletion: (1+2) - 0 + 1
    ("a b X d", "a b c d", 1.0, 0.0, 4.0, 10.0),  # substitution: (1+2) + 0 + 1
    ("a b X c d", "a b c d", -0.9, 1.0, 6.9, 10.0),  # the inserted word earns 0.9
    ("a b d", "a b c d", -0.9, 1.0, 3.0, 10.0),  # the deletion costs 1
    ("a b X d", "a b c d", -0.9, 1.0, 4.0, 10.0),  # substitution still free
    ("", "a b", 1.0, 0.0, 0.0, 3.0),  # delete everything
    ("", "a b", -0.9, 1.0, -2.0, 3.0),
    ("x y", "", 1.0, 0.0, -2.0, 0.0),  # empty reference: insert everything
    ("d c b a", "a b c d", 1.0, 0.0, 0.0, 10.0),  # a match costs an insertion: all subs
]


@pytest.mark.parametrize(("cand", "ref", "alpha", "beta", "num", "den"), HAND_WORKED)
def test_hand_worked(
    cand: str, ref: str, alpha: float, beta: float, num: float, den: float
) -> None:
    assert pair(cand, ref, alpha=alpha, beta=beta) == pytest.approx((num, den))


def test_identical_corpus_scores_one() -> None:
    metric = GRR()
    texts = ["the cat sat on the mat .", "a", "one two three four five six seven"]
    prepared = metric.prepare([RefItem(str(k), (WeightedRef(t),)) for k, t in enumerate(texts)])
    assert metric.result(metric.stats(texts, prepared).sum(axis=0)).score == 1.0


def test_denominator_counts_ngrams_of_orders_one_to_four() -> None:
    assert grr_denominator(np.array([0, 1, 2, 3, 4, 10])).tolist() == [0, 1, 3, 6, 10, 34]


@settings(max_examples=examples(200), deadline=None)
@given(
    data=st.lists(
        st.tuples(st.lists(st.integers(0, 3), max_size=9), st.lists(st.integers(0, 3), max_size=9)),
        min_size=1,
        max_size=12,
    ),
    alpha=st.sampled_from([1.0, -0.9, 0.5, 0.0]),
    beta=st.sampled_from([0.0, 1.0, -0.3]),
)
def test_vectorized_dp_matches_brute_force(
    data: list[tuple[list[int], list[int]]], alpha: float, beta: float
) -> None:
    cands, refs = [c for c, _ in data], [r for _, r in data]
    got = grr_numerators(segments_of(cands), segments_of(refs), alpha, beta)
    expected = [brute_force(c, r, alpha, beta) for c, r in data]
    assert np.allclose(got, expected, rtol=0, atol=1e-9)


def test_best_reference_per_item_and_micro_average() -> None:
    metric = GRR()
    refs = [
        RefItem("1", (WeightedRef("x y z"), WeightedRef("a b c d"), WeightedRef(""))),
        RefItem("2", (WeightedRef("p q"),)),
    ]
    rows = metric.stats(["a b c d", "p"], metric.prepare(refs))
    assert rows.tolist() == [[10.0, 10.0], [1.0, 3.0]]
    assert metric.scores_from_stats(rows.sum(axis=0)) == pytest.approx(11 / 13)


def test_ties_keep_the_first_reference() -> None:
    metric = GRR()
    refs = [RefItem("1", (WeightedRef("a b"), WeightedRef("a b c d")))]
    assert metric.stats(["q"], metric.prepare(refs)).tolist() == [[0.0, 3.0]]  # 0/3 = 0/10
    refs = [RefItem("1", (WeightedRef("a"), WeightedRef("b")))]
    assert metric.stats(["z z"], metric.prepare(refs)).tolist() == [[-1.0, 1.0]]


def test_scores_from_stats_vectorised_and_zero() -> None:
    metric = GRR()
    rows = np.random.default_rng(1).uniform(1, 50, size=(1000, 2)) * [[1, 1]] - [[5, 0]]
    assert np.allclose(metric.scores_from_stats(rows), rows[:, 0] / rows[:, 1])
    assert metric.scores_from_stats(np.zeros((4, 5, 2))).tolist() == [[0.0] * 5] * 4


def test_signature_pickle_and_errors() -> None:
    metric = GRR(alpha=-0.9, beta=1)
    prepared = pickle.loads(pickle.dumps(metric.prepare([RefItem("i7", (WeightedRef("a"),))])))
    res = metric.result(metric.stats(["a"], prepared).sum(axis=0))
    assert res.signature == (
        f"4grr|nrefs:1|tok:13a|case:mixed|alpha:-0.9|beta:1|ref:best|version:{__version__}"
    )
    assert res.extras == {"numerator": 1.0, "denominator": 1.0}
    with pytest.raises(MetricInputError, match="line count"):
        metric.stats([], prepared)
    with pytest.raises(MetricInputError, match="'i7'"):
        metric.stats([3], prepared)  # type: ignore[list-item]
    with pytest.raises(MetricInputError, match="'i8'"):
        metric.prepare([RefItem("i8", ())])


def test_lowercase_option() -> None:
    assert pair("A B", "a b") == (0.0, 3.0)
    assert pair("A B", "a b", lowercase=True) == (3.0, 3.0)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 3)), max_size=4), max_size=6))
def test_best_per_item_equals_a_plain_scan(items: list[list[tuple[int, int]]]) -> None:
    # (numerator, denominator) pairs per item: small integers, so ratio ties are common.
    pairs = [(k, float(n), float(d)) for k, item in enumerate(items) for n, d in item]
    owner = np.array([k for k, _, _ in pairs], dtype=np.int64)
    num = np.array([n for _, n, _ in pairs])
    den = np.array([d for _, _, d in pairs])
    expected = np.zeros((len(items), 2))
    for k, item in enumerate(items):
        best = None
        for n, d in item:
            ratio = n / d if d > 0 else -math.inf
            if best is None or ratio > best:
                best, expected[k] = ratio, (n, d)
    assert np.array_equal(best_per_item(num, den, owner, len(items)), expected)
