"""sBLEU: the mean of sacrebleu's sentence BLEU, BLEU+1 by default, Nakov et al. options."""

from __future__ import annotations

import math

import pytest
import sacrebleu

from scoring.metrics import RefItem, WeightedRef, get_metric, score_corpus

HYPS = ["the cat sat on the mat", "a dog", "nothing matches here at all"]
REFS = [["the cat sat on a mat", "a cat sat"], ["the dog barked", "a dog ran"], ["x y"]]
ITEMS = [RefItem(str(i), tuple(WeightedRef(r) for r in rs)) for i, rs in enumerate(REFS)]


@pytest.mark.parametrize("smooth", ["none", "floor", "add-k", "exp"])
def test_mean_of_sacrebleu_sentence_bleu(smooth):
    expected = sum(
        sacrebleu.sentence_bleu(h, rs, smooth_method=smooth).score for h, rs in zip(HYPS, REFS)
    ) / len(HYPS)
    assert score_corpus("sbleu", HYPS, ITEMS, smooth=smooth).score == pytest.approx(
        expected, abs=1e-9
    )


def test_default_is_lin_och_bleu_plus_one():
    # one item, hyp "a b c", ref "a b d": p1 = 2/3, p2 = (1+1)/(2+1), p3 = (0+1)/(1+1)
    res = score_corpus("sbleu", ["a b c"], [RefItem("0", (WeightedRef("a b d"),))], max_order=3)
    expected = 100 * math.exp((math.log(2 / 3) + math.log(2 / 3) + math.log(1 / 2)) / 3)
    assert res.score == pytest.approx(expected, abs=1e-9)


def test_nakov_options_change_short_outputs():
    items = [RefItem("0", (WeightedRef("a b c d e f"),))]
    plain = score_corpus("sbleu", ["a b"], items, max_order=2).score
    smoothed_bp = score_corpus("sbleu", ["a b"], items, max_order=2, bp_smooth=True).score
    grounded = score_corpus("sbleu", ["a b"], items, max_order=2, smooth_unigrams=True).score
    assert smoothed_bp > plain  # exp(1 - 7/3) > exp(1 - 6/2)
    assert grounded == pytest.approx(plain, abs=1e-9)  # p1 = 3/3 = 2/2
    long = score_corpus("sbleu", ["a b c d e f a b"], items, max_order=1, unclip_bp=True).score
    assert long > 100 * 6 / 8  # BP above 1
    m = get_metric("sbleu", bp_smooth=True, ref_scale=1.1)
    assert "nakov:bp_smooth" in m.signature(1) and "refscale:1.1" in m.signature(1)
