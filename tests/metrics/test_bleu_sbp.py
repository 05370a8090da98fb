"""BLEU-SBP: strict brevity penalty (Chiang et al. 2008, eq. 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scoring.metrics import RefItem, WeightedRef, get_metric, score_corpus


def items(*refs):
    return [RefItem(str(i), tuple(WeightedRef(r) for r in rs)) for i, rs in enumerate(refs)]


def test_long_sentence_does_not_license_short_one():
    refs = items(["a b c d"], ["e f g h"])
    hyps = ["a b c d a b c d", "e f"]  # 8 + 2 = 10 ≥ 8: plain BLEU has BP 1
    bleu = score_corpus("bleu", hyps, refs, max_order=1)
    sbp = score_corpus("bleu-sbp", hyps, refs, max_order=1)
    assert bleu.extras["bp"] == 1.0
    assert sbp.extras["bp"] == pytest.approx(math.exp(1 - 8 / 6))  # Σ min = 4 + 2
    assert sbp.extras["precisions"] == bleu.extras["precisions"]


def test_equals_bleu_when_no_sentence_is_long():
    refs = items(["a b c d"], ["e f g h"])
    hyps = ["a b c", "e f g h"]
    assert score_corpus("bleu-sbp", hyps, refs).score == score_corpus("bleu", hyps, refs).score


def test_shortest_reference_option_and_zero_rows():
    refs = items(["a b", "a b c d e"])
    assert score_corpus("bleu-sbp", ["a b c"], refs, max_order=1).extras["bp"] == 1.0
    m = get_metric("bleu-sbp", max_order=1, ref_length="shortest")
    assert m.scores_from_stats(np.zeros(5)) == 0.0
    stats = m.stats_direct(["a b c"], refs)
    assert stats[0, -1] == 2  # min(3, shortest 2)
