"""ΔBLEU: hand-worked examples, the author's demo, and properties against sacrebleu."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.metrics import MetricInputError, RefItem, WeightedRef, get_metric, score_corpus
from tests.examples import examples


def item(*refs, id_="x"):
    return RefItem(id_, tuple(WeightedRef(t, w) for t, w in refs))


DESIGN_EXAMPLE = item(("the cat sat on the mat", 1.0), ("the the the dog", 0.3), ("a cat", -1.0))


@pytest.mark.parametrize("definition, the_value", [("paper", 2.0), ("author-2019", 3.0)])
def test_design_md_unigram_example(definition, the_value):
    # hyp "the the the cat": 'the' earns 2.0 (paper) or 3.0 (author-2019); 'cat' earns
    # max(1.0·1, -1.0·1) = 1.0 under both; denominator 1.0 · 4 unigrams.
    m = get_metric("dbleu", definition=definition, max_order=1, tokenize="none")
    stats = m.stats_direct(["the the the cat"], [DESIGN_EXAMPLE])
    assert stats[0, 2] == pytest.approx(the_value + 1.0)
    assert stats[0, 3] == pytest.approx(4.0)
    res = m.result(stats.sum(0))
    assert res.extras["precisions"][0] == pytest.approx(100 * (the_value + 1.0) / 4)


def test_paper_bigrams_by_hand():
    # hyp "a cat sat": bigram 'a cat' only in the -1.0 reference: -1; 'cat sat' in +1.0: +1.
    m = get_metric("dbleu", max_order=2, tokenize="none", smooth="none")
    stats = m.stats_direct(["a cat sat"], [DESIGN_EXAMPLE])
    # unigrams: a → -1, cat → max(1, -1) = 1, sat → 1
    np.testing.assert_allclose(stats[0], [3, 2, 1.0, 0.0, 3.0, 2.0])
    assert m.result(stats.sum(0)).score == 0.0  # corpus bigram numerator 0 → no smoothing → 0


def test_negative_corpus_numerator_is_clamped():
    m = get_metric("dbleu", max_order=1, tokenize="none", smooth="none")
    stats = m.stats_direct(["a"], [item(("b", 1.0), ("a", -1.0))])
    assert stats[0, 2] == -1.0
    assert m.scores_from_stats(stats.sum(0)) == 0.0


def test_each_item_needs_a_positive_reference():
    with pytest.raises(MetricInputError, match=r"item 'bad'.*positive weight"):
        score_corpus("dbleu", ["a b", "c"], [item(("a b", 1.0)), item(("c", 0.0), id_="bad")])


def test_weight_out_of_range_names_item():
    with pytest.raises(MetricInputError, match="item 'x'.*not in"):
        score_corpus("dbleu", ["a"], [item(("a", 1.5))])


def test_author_demo(author_demo):
    items = [
        RefItem(it["id"], tuple(WeightedRef(r["text"], r["weight"]) for r in it["refs"]))
        for it in author_demo["items"]
    ]
    for system, data in author_demo["systems"].items():
        for key, name, kw in [
            ("bleu", "bleu", {}),
            ("dbleu", "dbleu", {"definition": "author-2019"}),
        ]:
            res = score_corpus(name, data["hyps"], items, **kw)
            exp = author_demo["expected"][key][system]
            assert round(res.score, 2) == exp["score"]
            assert [round(p, 1) for p in res.extras["precisions"]] == exp["precisions"]
            assert (res.extras["sys_len"], res.extras["ref_len"]) == (
                exp["sys_len"],
                exp["ref_len"],
            )


def test_author_demo_full_precision(vectors):
    for vec in vectors["deltableu_vectors"]:
        n = len(vec["hyps"])
        weights = vec["ref_weights"] or [[1.0] * n for _ in vec["refs"]]
        items = [
            RefItem(str(i), tuple(WeightedRef(s[i], w[i]) for s, w in zip(vec["refs"], weights)))
            for i in range(n)
        ]
        res = score_corpus("dbleu", vec["hyps"], items, definition="author-2019")
        assert res.score == pytest.approx(vec["expected"]["score"], abs=1e-9)
        np.testing.assert_allclose(
            res.extras["counts"], vec["expected"]["weighted_counts"], atol=1e-9
        )


WORDS = st.sampled_from(["the", "cat", "a", "dog", "sat", ".", ",", "on", "mat", "3", "-", "it's"])
SENT = st.lists(WORDS, min_size=0, max_size=9).map(" ".join)


@st.composite
def corpora(draw):
    n = draw(st.integers(1, 4))
    hyps = [draw(SENT) for _ in range(n)]
    refs = [draw(st.lists(SENT, min_size=1, max_size=4)) for _ in range(n)]
    return hyps, refs


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpora(),
    st.sampled_from(["13a", "none", "char", "intl"]),
    st.integers(1, 4),
    st.sampled_from(["none", "floor", "add-k", "exp"]),
    st.sampled_from(["paper", "author-2019"]),
)
def test_all_weights_one_equals_bleu_and_sacrebleu(corpus, tok, order, smooth, definition):
    hyps, refs = corpus
    items = [RefItem(str(i), tuple(WeightedRef(r) for r in rs)) for i, rs in enumerate(refs)]
    width = max(len(rs) for rs in refs)
    streams = [[rs[k] if k < len(rs) else None for rs in refs] for k in range(width)]
    sb = (
        sacrebleu.BLEU(tokenize=tok, smooth_method=smooth, max_ngram_order=order, force=True)
        .corpus_score(hyps, streams)
        .score
    )
    opts = {"tokenize": tok, "max_order": order, "smooth": smooth}
    assert score_corpus("bleu", hyps, items, **opts).score == pytest.approx(sb, abs=1e-9)
    d = score_corpus("dbleu", hyps, items, definition=definition, **opts).score
    assert d == pytest.approx(sb, abs=1e-9)


@st.composite
def weighted(draw):
    hyps, refs = draw(corpora())
    weights = [[draw(st.floats(-1, 1, allow_nan=False)) for _ in rs] for rs in refs]
    for ws in weights:  # best reference per item has weight 1
        ws[draw(st.integers(0, len(ws) - 1))] = 1.0
    return hyps, refs, weights


@settings(max_examples=examples(60), deadline=None)
@given(weighted(), st.sampled_from(["paper", "author-2019"]), st.integers(1, 4))
def test_weighted_properties(data, definition, order):
    hyps, refs, weights = data
    mk = lambda ws, rs: [
        RefItem(str(i), tuple(WeightedRef(t, w) for t, w in zip(r, wi)))
        for i, (r, wi) in enumerate(zip(rs, ws))
    ]
    opts = {"definition": definition, "max_order": order, "tokenize": "none"}
    base = score_corpus("dbleu", hyps, mk(weights, refs), **opts).score
    assert base <= 100.0 + 1e-9
    # reference order does not matter
    rev = score_corpus(
        "dbleu", hyps, mk([w[::-1] for w in weights], [r[::-1] for r in refs]), **opts
    )
    assert rev.score == pytest.approx(base, abs=1e-9)
    # making the non-best references negative never raises the score (without smoothing:
    # exp/floor smoothing can credit a numerator clamped to 0 more than a small positive one)
    flipped = [[w if w == 1.0 else -abs(w) for w in ws] for ws in weights]
    plain = score_corpus("dbleu", hyps, mk(weights, refs), smooth="none", **opts).score
    lower = score_corpus("dbleu", hyps, mk(flipped, refs), smooth="none", **opts).score
    assert lower <= plain + 1e-9
