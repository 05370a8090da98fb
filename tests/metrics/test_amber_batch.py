"""AMBER's numpy batch statistics equal the per-pair reference definition, row by row, exactly."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.metrics import amber_batch
from scoring.metrics.amber import Amber
from scoring.metrics.amber_batch import amber_stats_batch, variant_stats_batch
from scoring.metrics.amber_pairs import BLOCK, split_type1, variant_stats
from scoring.metrics.base import RefItem, WeightedRef
from scoring.metrics.nist import make_tokenizer
from tests.examples import examples

# Short and long words; the long ones share variant-4 pieces ("gang"+"gs", "stin"+"gs", "gang"+"er")
# so that splitting creates new repeats and matches.
WORDS = ("a", "ba", "the", "gang", "gangs", "stings", "gangster", "bags", "understanding", "x")

Pairs = list[tuple[list[str], list[str]]]


@st.composite
def batches(draw: st.DrawFn, max_words: int = 14, max_pairs: int = 8) -> Pairs:
    """Pairs over a vocabulary of 2–6 words, so repeats, gapped matches and ties are frequent."""
    vocab = draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=6, unique=True))
    sentence = st.lists(st.sampled_from(vocab), max_size=max_words)
    return draw(st.lists(st.tuples(sentence, sentence), min_size=1, max_size=max_pairs))


def reference_rows(pairs: Pairs) -> np.ndarray:
    return np.array([variant_stats(h, r) for h, r in pairs]).reshape(len(pairs), BLOCK)


def assert_rows_equal(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape
    for p, (g, e) in enumerate(zip(got, expected, strict=True)):
        differ = np.flatnonzero(g != e).tolist()
        assert np.array_equal(g, e), f"pair {p}: columns {differ}: {g[differ]} != {e[differ]}"


@settings(max_examples=examples(300), deadline=None)
@given(pairs=batches())
def test_batch_rows_equal_variant_stats(pairs: Pairs) -> None:
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    assert_rows_equal(variant_stats_batch(hyps, refs), reference_rows(pairs))


@settings(max_examples=examples(200), deadline=None)
@given(pairs=batches())
def test_both_variants_equal_variant_stats_of_variants_1_and_4(pairs: Pairs) -> None:
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    split = [(split_type1(h), split_type1(r)) for h, r in pairs]
    got = amber_stats_batch(hyps, refs)
    assert_rows_equal(got[:, :BLOCK], reference_rows(pairs))
    assert_rows_equal(got[:, BLOCK:], reference_rows(split))


@settings(max_examples=examples(100), deadline=None)
@given(
    short=batches(max_words=2, max_pairs=4),
    long=batches(max_words=40, max_pairs=3),
    order=st.randoms(use_true_random=False),
)
def test_sentences_of_very_different_lengths_in_one_batch(
    short: Pairs, long: Pairs, order: random.Random
) -> None:
    pairs = short + long + [([], []), (["a"], []), ([], ["a"]), (["gangs"], ["gangs"])]
    order.shuffle(pairs)
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    assert_rows_equal(variant_stats_batch(hyps, refs), reference_rows(pairs))


@settings(max_examples=examples(50), deadline=None)
@given(pairs=batches(max_pairs=20))
def test_chunk_boundaries_change_nothing(pairs: Pairs) -> None:
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    whole = amber_stats_batch(hyps, refs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(amber_batch, "CHUNK_COST", 50)
        assert np.array_equal(amber_stats_batch(hyps, refs), whole)


def test_repetitive_long_sentences() -> None:
    # Dense flexible-gap patterns and many rank ties: 60 words over two.
    rng = np.random.default_rng(5)
    pairs = [
        (
            [("a", "ba")[k] for k in rng.integers(0, 2, 60)],
            [("a", "ba")[k] for k in rng.integers(0, 2, 50)],
        )
        for _ in range(3)
    ]
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    assert_rows_equal(variant_stats_batch(hyps, refs), reference_rows(pairs))


def test_empty_batch_and_mismatched_lengths() -> None:
    assert variant_stats_batch([], []).shape == (0, BLOCK)
    assert amber_stats_batch([], []).shape == (0, 2 * BLOCK)
    with pytest.raises(ValueError, match="2 hypotheses for 1 references"):
        variant_stats_batch([["a"], ["b"]], [["a"]])


def test_metric_stats_equal_the_per_item_reference_path() -> None:
    metric = Amber()
    texts = [
        (
            "The gangs were fighting in the streets .",
            ["Gangs fought in the streets .", "The street gangs were fighting hard ."],
        ),
        (
            "Bob likes reading the book , reading it twice .",
            ["Bob likes reading the book .", "Bob reads the book and likes it"],
        ),
        ("", ["Nothing was said ."]),
        (
            "understanding understanding understood",
            ["Understanding is understood by understanding"],
        ),
        ("a b a b a b", ["b a b a", "a"]),
    ]
    items = [
        RefItem(str(k), tuple(WeightedRef(r) for r in refs)) for k, (_, refs) in enumerate(texts)
    ]
    rows = metric.stats([h for h, _ in texts], metric.prepare(items))
    tok = make_tokenizer(metric.tokenize, metric.lowercase)
    for row, (hyp, refs) in zip(rows, texts, strict=True):
        h1 = tok(hyp)
        r1 = min((tok(r) for r in refs), key=lambda r: (abs(len(r) - len(h1)), len(r)))
        assert np.array_equal(row[:BLOCK], variant_stats(h1, r1))
        assert np.array_equal(row[BLOCK:], variant_stats(split_type1(h1), split_type1(r1)))
