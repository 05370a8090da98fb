"""AMBER(1,4): the paper's worked examples, formulas on hand-made statistics, and the API."""

from __future__ import annotations

import pickle
import warnings
from collections import Counter

import numpy as np
import pytest

from scoring.metrics import __version__
from scoring.metrics.amber import Amber, variant_amber, variant_parts
from scoring.metrics.amber_pairs import (
    BLOCK,
    FIX_H,
    FIX_M,
    FLX_H,
    FLX_M,
    HYP,
    MATCH,
    PENALTY_WEIGHTS,
    SEGS,
    rank_correlations,
    rank_vector_correlations,
    split_type1,
    variant_stats,
)
from scoring.metrics.base import MetricInputError, RefItem, WeightedRef


def corpus_block(pairs: list[tuple[str, str]]) -> np.ndarray:
    return np.sum([variant_stats(h.split(), r.split()) for h, r in pairs], axis=0)


def test_chunk_example_13_words_6_bigrams_7_chunks() -> None:
    # S1: m1 m2 x m3 m4 m5 x m6 / S2: m7 x m8 m9 x m10 m11 m12 x m13 (section 2.2, CKP).
    block = corpus_block(
        [("a b X c d e Y f", "a b c d e f"), ("g Z h i W j k l V m", "g h i j k l m")]
    )
    assert (block[MATCH], block[MATCH + 1]) == (13, 6)
    _, pens = variant_parts(block)
    assert pens["ckp"] == pytest.approx(1 - 0.1 * (7 / 13) ** 3)


def test_continuity_example_11_over_13_minus_2() -> None:
    # S3: m1..m6 and S4: m7..m13, all matched words continuous (section 2.2, CTP).
    block = corpus_block([("a b c d e f",) * 2, ("g h i j k l m",) * 2])
    assert (block[MATCH], block[MATCH + 1], block[SEGS]) == (13, 11, 2)
    assert block[MATCH + 1] / (block[MATCH] - block[SEGS]) == 1.0
    assert variant_parts(block)[1]["ctp"] == 1.0


def test_spearman_and_kendall_examples() -> None:
    rho, tau = rank_vector_correlations([1, 3, 4, 2])
    assert rho == pytest.approx(0.90)
    assert tau == pytest.approx(1 / 3)
    assert rank_correlations(
        ["Bob", "reading", "book", "likes"], ["Bob", "likes", "reading", "book"]
    ) == (
        pytest.approx(0.9),
        pytest.approx(1 / 3),
        4,
    )
    assert rank_vector_correlations([4, 3, 2, 1]) == pytest.approx((1 - 20 / 60, -1.0))
    assert rank_vector_correlations([7]) == (1.0, 1.0)


def test_correspondence_pairs_kth_occurrences() -> None:
    # hyp "b a a": b→1, first a→0, second a→2 → rank vector [2, 1, 3].
    rho, tau, n = rank_correlations(["b", "a", "a"], ["a", "b", "a"])
    assert n == 3
    assert (rho, tau) == pytest.approx((1 - 2 / 24, 1 / 3))


def test_split_type1() -> None:
    assert split_type1(["gangs"]) == ["gang", "gs"]
    assert split_type1(["gang", "a", "abcdef", "understanding"]) == [
        "gang",
        "a",
        "abcd",
        "ef",
        "unde",
        "ng",
    ]


def test_gapped_ngram_counts() -> None:
    block = variant_stats(["a", "b", "c", "d"], ["a", "X", "c", "d"])
    assert block[FIX_H : FIX_H + 3].tolist() == [2, 2, 0]  # a_c b_d | a_cd ab_d | none
    assert block[FLX_H : FLX_H + 3].tolist() == [3, 2, 0]  # a_c a_d b_d | a_cd ab_d
    assert block[FLX_M : FLX_M + 3].tolist() == [2, 1, 0]  # a_c a_d | a_cd


def test_identical_corpus_only_pays_the_chunk_penalty() -> None:
    pairs = [("the cat sat on the mat .",) * 2, ("a b c d e f g h i j",) * 2]
    block = corpus_block(pairs)
    score, pens = variant_parts(block)
    assert score == pytest.approx(1.0)
    assert {k for k, v in pens.items() if v != pytest.approx(1.0)} == {"ckp"}
    assert variant_amber(block) == pytest.approx(1 - 0.1 * (2 / 17) ** 3)


def test_score_formula_on_hand_made_statistics() -> None:
    block = np.zeros(BLOCK)
    block[HYP : HYP + 4] = 10  # hypothesis n-grams
    block[MATCH : MATCH + 4] = [8, 6, 4, 2]
    block[MATCH + 8 : MATCH + 12] = 16  # reference n-grams → recall 0.5, 0.375, 0.25, 0.125
    block[FIX_H : FIX_H + 3] = block[FLX_H : FLX_H + 3] = 1  # gapped: 0 matches of 1
    p = (np.array([0.8, 0.6, 0.4, 0.2]) + np.array([0.8, 0, 0, 0]) * 2) / 3
    r = np.array([8, 6, 4, 2]) / 16
    fmean = p.mean() * r[0] / (0.9 * p.mean() + 0.1 * r[0])
    avg_f = np.mean(p * r / (0.9 * p + 0.1 * r))
    expected = 0.3 * np.prod(p) ** 0.25 + 0.5 * fmean + 0.2 * avg_f
    assert variant_parts(block)[0] == pytest.approx(expected)


def test_penalty_weights_are_table_2() -> None:
    assert PENALTY_WEIGHTS == {
        "sbp": 0.30, "srp": 0.10, "csbp": 0.15, "csrp": 0.05, "swdp": 0.10,
        "lwdp": 0.20, "ckp": 1.00, "ctp": 0.80, "nscp": 0.50, "nkcp": 2.00,
    }  # fmt: skip


def test_length_and_word_penalties() -> None:
    # hyp shorter in one sentence, longer in the other: strict penalties see both.
    block = corpus_block([("a b", "a b c d"), ("e f g h i j", "e f g h")])
    _, pens = variant_parts(block)
    assert pens["sbp"] == pytest.approx(np.exp(1 - 8 / 6))
    assert pens["srp"] == pytest.approx(np.exp(1 - 10 / 8))
    assert pens["swdp"] == pytest.approx(np.exp(-4 / 8))
    assert pens["lwdp"] == 1.0


def test_metric_averages_variants_and_picks_closest_reference() -> None:
    metric = Amber()
    refs = [
        RefItem("1", (WeightedRef("Gangs were fighting"), WeightedRef("the gangs fought hard")))
    ]
    rows = metric.stats(["The gangs FOUGHT"], metric.prepare(refs))
    assert rows[0, MATCH] == 1  # the 3-word reference is closest: only "gangs" matches
    assert rows[0, BLOCK + MATCH] == 2  # variant 4: "gang" + "gs"
    first, second = rows[0, :BLOCK], rows[0, BLOCK:]
    assert variant_amber(first) != variant_amber(second)
    assert metric.scores_from_stats(rows[0]) == pytest.approx(
        (variant_amber(first) + variant_amber(second)) / 2
    )


def test_scores_from_stats_vectorised_without_warnings() -> None:
    metric = Amber()
    refs = [RefItem(str(k), (WeightedRef(t),)) for k, t in enumerate(["a b c d", "e f g", "h i"])]
    rows = metric.stats(["a b x d", "g f e", ""], metric.prepare(refs))
    rng = np.random.default_rng(0)
    samples = rng.integers(0, 2, size=(200, 3)).astype(float) @ rows
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batch = metric.scores_from_stats(samples)
        assert metric.scores_from_stats(np.zeros(2 * BLOCK)) == 0.0
    assert batch.shape == (200,)
    assert np.allclose(batch, [metric.scores_from_stats(s) for s in samples])
    assert metric.scores_from_stats(np.zeros((2, 3, 2 * BLOCK))).shape == (2, 3)


def test_result_signature_pickle_and_errors() -> None:
    metric = Amber()
    prepared = pickle.loads(pickle.dumps(metric.prepare([RefItem("s1", (WeightedRef("a b"),))])))
    res = metric.result(metric.stats(["a b"], prepared).sum(axis=0))
    assert res.signature == (
        "amber|nrefs:1|tok:13a|case:lc|variants:1+4|match:ngram+fixgap+flexgap|ref:closest"
        f"|version:{__version__}"
    )
    assert set(res.extras) == {"variant_1", "variant_4"}
    assert set(res.extras["variant_1"]["penalties"]) == set(PENALTY_WEIGHTS)
    with pytest.raises(MetricInputError, match="line count"):
        metric.stats(["a", "b"], prepared)
    with pytest.raises(MetricInputError, match="'s1'"):
        metric.stats([None], prepared)  # type: ignore[list-item]
    with pytest.raises(MetricInputError, match="'s2'"):
        metric.prepare([RefItem("s2", ())])


def naive_gapped(tokens: list[str], n: int, flexible: bool) -> Counter[tuple[object, ...]]:
    """Every (gap position, words) pattern, by brute force over all gap placements."""
    out: Counter[tuple[object, ...]] = Counter()
    for a in range(1, n):
        for s in range(len(tokens)):
            for gap in range(1, len(tokens) + 1) if flexible else (1,):
                t = s + a + gap
                if t + n - a <= len(tokens):
                    out[(a, *tokens[s : s + a], *tokens[t : t + n - a])] += 1
    return out


def test_gapped_matches_agree_with_brute_force() -> None:
    rng = np.random.default_rng(3)
    for _ in range(150):
        hyp = [str(x) for x in rng.integers(0, 5, size=int(rng.integers(0, 13)))]
        ref = [str(x) for x in rng.integers(0, 5, size=int(rng.integers(0, 13)))]
        block = variant_stats(hyp, ref)
        for n in range(2, 5):
            for col_m, col_h, flexible in ((FIX_M, FIX_H, False), (FLX_M, FLX_H, True)):
                h, r = naive_gapped(hyp, n, flexible), naive_gapped(ref, n, flexible)
                assert block[col_h + n - 2] == sum(h.values())
                assert block[col_m + n - 2] == sum((h & r).values())
