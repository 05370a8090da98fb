"""BLEU equals sacrebleu: its own test vectors, stats→score rows, and the WMT17 data."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu

from scoring.metrics import get_metric, score_corpus
from scoring.metrics.bleu_math import brevity_penalty, compute_bleu

from .conftest import VECTORS_DIR, vector_json
from .helpers import items_from_streams

VECTORS = vector_json("sacrebleu_vectors.json")


def _opts(settings: dict) -> dict:
    return {
        "tokenize": settings["tokenize"],
        "smooth": settings["smooth_method"],
        "smooth_value": settings["smooth_value"],
        "lowercase": settings["lowercase"],
        "max_order": settings["max_ngram_order"],
        "effective_order": settings["use_effective_order"],
    }


CORPUS = [
    v for v in VECTORS["vectors"] if not v["settings"]["sentence_level"] and "sacrebleu_2_6_0" in v
]
MTEVAL = {v["name"]: v for v in VECTORS["vectors"] if "sacrebleu_2_6_0" not in v}
SENTENCE = [v for v in VECTORS["vectors"] if v["settings"]["sentence_level"]]


@pytest.mark.parametrize("vec", CORPUS, ids=[v["name"] for v in CORPUS])
def test_corpus_vectors(vec):
    res = score_corpus(
        "bleu", vec["hyps"], items_from_streams(vec["refs"]), **_opts(vec["settings"])
    )
    expected = vec["sacrebleu_2_6_0"]["score"]
    assert res.score == pytest.approx(expected, abs=1e-9)
    assert res.extras["sys_len"] == vec["sacrebleu_2_6_0"]["sys_len"]
    assert res.extras["ref_len"] == vec["sacrebleu_2_6_0"]["ref_len"]


def test_mteval_shortest_reference_length_rule():
    vec = MTEVAL["mteval13a.tiny.bp_shortest"]
    items = items_from_streams(vec["refs"])
    res = score_corpus("bleu", vec["hyps"], items, ref_length="shortest")
    assert res.extras["ref_len"] == vec["expected"]["ref_len_shortest"]
    assert round(res.score / 100, 4) == float(vec["expected"]["mteval_bleu"])
    closest = score_corpus("bleu", vec["hyps"], items)
    assert closest.extras["ref_len"] == vec["expected"]["ref_len_closest"]


def test_mteval_single_reference():
    vec = MTEVAL["mteval13a.tiny.ref1_only"]
    res = score_corpus("bleu", vec["hyps"], items_from_streams(vec["refs"]))
    assert round(res.score / 100, 4) == float(vec["expected"]["mteval_bleu"])


def test_unicode_lowercase_follows_python_like_sacrebleu():
    vec = MTEVAL["mteval13a.unicode_lowercase"]
    res = score_corpus("bleu", vec["hyps"], items_from_streams(vec["refs"]), lowercase=True)
    sb = sacrebleu.corpus_bleu(vec["hyps"], vec["refs"], lowercase=True)
    assert res.score == pytest.approx(sb.score, abs=1e-9)
    assert res.extras["precisions"][:2] == [100.0, 100.0]  # 'É' lowercased, unlike mteval
    eff = score_corpus(
        "bleu", vec["hyps"], items_from_streams(vec["refs"]), lowercase=True, effective_order=True
    )
    assert eff.score == pytest.approx(vec["expected"]["sacrebleu_lowercase_score"], abs=1e-9)


@pytest.mark.parametrize("vec", SENTENCE, ids=[v["name"] for v in SENTENCE])
def test_sentence_vectors_one_item_each(vec):
    # a sentence-level vector is a one-item corpus with effective order
    res = score_corpus(
        "bleu", vec["hyps"], items_from_streams(vec["refs"]), **_opts(vec["settings"])
    )
    assert res.score == pytest.approx(vec["sacrebleu_2_6_0"]["score"], abs=1e-9)


@pytest.mark.parametrize("vec", VECTORS["stats_vectors"], ids=lambda v: v["name"])
def test_stats_to_score_rows(vec):
    st, se = vec["stats"], vec["settings"]
    parts = compute_bleu(
        np.array(st["correct"], float),
        np.array(st["total"], float),
        brevity_penalty(np.float64(st["sys_len"]), np.float64(st["ref_len"])),
        se["smooth_method"],
        se["smooth_value"],
        se["effective_order"],
    )
    assert float(parts.score) == pytest.approx(vec["sacrebleu_2_6_0"]["score"], abs=1e-9)
    assert float(parts.bp) == pytest.approx(vec["sacrebleu_2_6_0"]["bp"], abs=1e-12)


def test_scores_from_stats_handmade_rows_with_zeros():
    m = get_metric("bleu", max_order=2, smooth="none")
    rows = np.array(
        [
            [0, 0, 0, 0, 0, 0],  # empty corpus
            [4, 4, 0, 0, 4, 3],  # no match at all
            [4, 4, 4, 3, 4, 3],  # perfect
            [2, 4, 2, 1, 2, 1],  # short: BP = exp(1 - 2)
            [4, 4, 2, 0, 4, 3],  # no bigram match, no smoothing
        ],
        dtype=float,
    )
    got = m.scores_from_stats(rows)
    expected = [0.0, 0.0, 100.0, 100.0 * np.exp(-1.0), 0.0]
    np.testing.assert_allclose(got, expected, atol=1e-9)
    assert m.scores_from_stats(rows[2]).shape == ()


def test_exp_smoothing_on_zero_orders_matches_sacrebleu():
    for correct, total in [([3, 0, 0, 0], [5, 4, 3, 2]), ([2, 1, 0, 0], [2, 1, 0, 0])]:
        sb = sacrebleu.BLEU.compute_bleu(correct[:], total[:], 5, 5, smooth_method="exp")
        ours = compute_bleu(
            np.array(correct, float), np.array(total, float), np.float64(1.0), "exp"
        )
        assert float(ours.score) == pytest.approx(sb.score, abs=1e-9)


WMT = [v for v in VECTORS["wmt17_en_de_vectors"]]


def _wmt_case(vec):
    read = lambda rel: (VECTORS_DIR / rel).read_text(encoding="utf-8").splitlines()
    return read(vec["hyps_file"]), [read(p) for p in vec["refs_files"]]


def test_wmt17_one_system_matches_sacrebleu_and_mteval():
    vec = WMT[0]
    hyps, streams = _wmt_case(vec)
    res = score_corpus("bleu", hyps, items_from_streams(streams))
    assert res.score == pytest.approx(vec["sacrebleu_2_6_0"]["score"], abs=1e-9)
    assert round(res.score / 100, 4) == pytest.approx(
        float(vec["expected"]["mteval_bleu"]), abs=1e-4
    )


@pytest.mark.slow
@pytest.mark.parametrize("vec", WMT, ids=[v["name"] for v in WMT])
def test_wmt17_all_systems(vec):
    hyps, streams = _wmt_case(vec)
    res = score_corpus("bleu", hyps, items_from_streams(streams))
    assert res.score == pytest.approx(vec["sacrebleu_2_6_0"]["score"], abs=1e-9)
    assert res.extras["sys_len"] == vec["sacrebleu_2_6_0"]["sys_len"]
