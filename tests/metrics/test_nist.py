"""NIST and ΔNIST: hand-worked values, mteval's quirk, and parity with mteval-v13a on WMT17."""

from __future__ import annotations

import math
import pickle
from functools import lru_cache

import numpy as np
import pytest

from scoring.metrics import __version__
from scoring.metrics.base import MetricInputError, RefItem, WeightedRef
from scoring.metrics.nist import (
    BETA,
    NIST,
    DeltaNIST,
    NISTIndex,
    clear_token_cache,
    make_tokenizer,
)

from .conftest import VECTORS_DIR, vector_json

# mteval-v13a's NIST on WMT17 en→de, as printed and restated at full precision with and without
# its Perl quirk (tests/data/vectors/README.md).
VECTORS = [
    {
        "name": v["name"],
        "hyps_file": v["hyps_file"],
        "refs_files": v["refs_files"],
        "mteval_nist": v["expected"]["mteval_nist"],
        "nist_with_quirk": v["expected"]["nist_restated_full_precision_with_perl_zero_quirk"],
        "nist_no_quirk": v["expected"]["nist_restated_full_precision_no_quirk"],
    }
    for v in vector_json("sacrebleu_vectors.json")["wmt17_en_de_vectors"]
]


def items(*refs_per_item: tuple[str, ...] | tuple[tuple[str, float], ...]) -> list[RefItem]:
    out = []
    for k, refs in enumerate(refs_per_item):
        weighted = tuple(WeightedRef(*r) if isinstance(r, tuple) else WeightedRef(r) for r in refs)
        out.append(RefItem(f"item-{k}", weighted))
    return out


def corpus(metric: NIST, hyps: list[str], refs: list[RefItem]) -> float:
    return float(metric.scores_from_stats(metric.stats(hyps, metric.prepare(refs)).sum(axis=0)))


def test_beta_gives_half_penalty_at_two_thirds() -> None:
    assert pytest.approx(4.216174, abs=1e-6) == BETA
    assert -math.log(0.5) / math.log(2 / 3) ** 2 == BETA
    bp = NIST._brevity(np.array([2.0, 3.0, 4.0, 0.0]), np.array([3.0, 3.0, 3.0, 3.0]))
    assert bp == pytest.approx([0.5, 1.0, 1.0, 0.0])


def test_hand_worked_two_items() -> None:
    # refs: 6 tokens; a:3 b,c,d:1 → Info(a)=1, Info(b)=Info(d)=log2 6, Info(a b)=Info(a d)=log2 3.
    refs = items(("a b a c",), ("a d",))
    expected = 0.5 * ((2 + 2 * math.log2(6)) / 4 + (2 * math.log2(3)) / 2)  # BP(4/6) = 0.5
    assert corpus(NIST(), ["a b", "a d"], refs) == pytest.approx(expected, abs=1e-12)


def test_clipping_uses_max_count_over_references() -> None:
    refs = items(("x x y", "x z"))
    metric = NIST()
    prepared = metric.prepare(refs)
    row = metric.stats(["x x x"], prepared)[0]
    assert row[0] == pytest.approx(2 * prepared.info[("x",)])  # clipped at max(2, 1)
    assert row[5:10].tolist() == [3, 2, 1, 0, 0]
    assert row[10:].tolist() == [3, 2.5]  # hypothesis length, mean reference length


def test_mteval_quirk_only_touches_bigrams_starting_with_zero() -> None:
    refs = items(("0 x 0 y",))
    plain = NIST(mteval_compat=False).prepare(refs).info
    quirk = NIST(mteval_compat=True).prepare(refs).info
    assert plain[("0", "x")] == pytest.approx(1.0)  # count(0 x) / count(0) = 1/2
    assert quirk[("0", "x")] == pytest.approx(2.0)  # count(0 x) / all 4 tokens, as mteval
    assert quirk[("0", "x", "0")] == plain[("0", "x", "0")] == 0.0  # prefix "0 x" is true
    assert {g: v for g, v in quirk.items() if g[0] != "0" or len(g) != 2} == {
        g: v for g, v in plain.items() if g[0] != "0" or len(g) != 2
    }


def test_mteval_tokenizer_folds_ascii_only() -> None:
    assert make_tokenizer("mteval", False)("Über DEN Fluß, 3.5") == [
        "Über",
        "den",
        "fluß",
        ",",
        "3.5",
    ]
    assert make_tokenizer("13a", False)("Über DEN Fluß, 3.5") == ["Über", "DEN", "Fluß", ",", "3.5"]
    assert make_tokenizer("13a", True)("Über DEN") == ["über", "den"]
    with pytest.raises(MetricInputError, match="unknown tokenizer"):
        make_tokenizer("moses", False)


def test_scores_from_stats_is_vectorised_and_handles_zeros() -> None:
    metric = NIST()
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 50, size=(1000, 12)).astype(float)
    batch = metric.scores_from_stats(rows)
    assert batch.shape == (1000,)
    assert np.allclose(batch, [metric.scores_from_stats(r) for r in rows])
    assert metric.scores_from_stats(np.zeros(12)) == 0.0
    assert metric.scores_from_stats(np.zeros((3, 7, 12))).shape == (3, 7)


def test_result_signature_and_pickle() -> None:
    metric = NIST(mteval_compat=True)
    prepared = pickle.loads(pickle.dumps(metric.prepare(items(("a b",), ("c",)))))
    res = metric.result(metric.stats(["a b", "c"], prepared).sum(axis=0))
    assert res.score == pytest.approx(corpus(metric, ["a b", "c"], items(("a b",), ("c",))))
    assert res.signature == (
        f"nist|nrefs:1|tok:13a|case:mixed|order:5|ref:avg|compat:mteval-v13a|version:{__version__}"
    )
    assert res.extras["bp"] == 1.0 and len(res.extras["info_per_order"]) == 5
    assert NIST(tokenize="mteval").signature(2).split("|")[2:4] == ["tok:mteval", "case:lc-ascii"]


def test_bad_input_names_the_item() -> None:
    metric = NIST()
    prepared = metric.prepare(items(("a",), ("b",)))
    with pytest.raises(MetricInputError, match="line count"):
        metric.stats(["a"], prepared)
    with pytest.raises(MetricInputError, match="item-1"):
        metric.stats(["a", None], prepared)  # type: ignore[list-item]
    with pytest.raises(MetricInputError, match="'x'"):
        metric.prepare([RefItem("x", ())])
    with pytest.raises(MetricInputError, match="order"):
        NIST(max_order=0)


def test_delta_nist_design_example() -> None:
    refs = items((("the cat sat on the mat", 1.0), ("the the the dog", 0.3), ("a cat", -1.0)))
    metric = DeltaNIST()
    prepared = metric.prepare(refs)
    row = metric.stats(["the the the cat"], prepared)[0]
    info = prepared.info
    # `the`: max(1.0·min(3, 2), 0.3·min(3, 3)) = 2.0; `cat`: max(1.0·1, -1.0·1) = 1.0.
    assert row[0] == pytest.approx(2.0 * info[("the",)] + 1.0 * info[("cat",)])
    # `the the`: only in the 0.3 reference (count 2) → 0.3·2; `the cat`: 1.0·1.
    assert row[1] == pytest.approx(0.6 * info[("the", "the")] + info[("the", "cat")])
    assert row[5:7].tolist() == [4.0, 3.0]  # max weight 1.0 × hypothesis n-grams
    assert metric.signature(3).startswith("dnist|def:paper|nrefs:3|")


def test_delta_nist_equals_nist_with_unit_weights() -> None:
    ref_lines = (
        (VECTORS_DIR / "wmt17_en_de" / "newstest2017-ende-ref.de.txt").read_text().split("\n")[:200]
    )
    hyp_lines = (VECTORS_DIR / VECTORS[0]["hyps_file"]).read_text().split("\n")[:200]
    refs = items(*((r, h) for r, h in zip(ref_lines, hyp_lines[::-1])))
    for compat in (False, True):
        plain, delta = NIST(mteval_compat=compat), DeltaNIST(mteval_compat=compat)
        a = plain.stats(hyp_lines, plain.prepare(refs))
        b = delta.stats(hyp_lines, delta.prepare(refs))
        assert np.allclose(a, b, rtol=0, atol=1e-12)


def test_delta_nist_weights_scale_and_validate() -> None:
    refs = items((("a b c", 0.5),), (("d e", 0.5), ("f", -1.0)))
    halved = corpus(DeltaNIST(), ["a b c", "d e"], refs)
    assert halved == pytest.approx(
        corpus(NIST(), ["a b c", "d e"], items(("a b c",), ("d e", "f")))
    )
    with pytest.raises(MetricInputError, match="item-0.*weight > 0"):
        DeltaNIST().prepare(items((("a", -0.5),)))
    with pytest.raises(MetricInputError, match="item-0.*not in"):
        DeltaNIST().prepare(items((("a", 1.5),)))


def test_tokenizer_cache_hands_out_fresh_lists() -> None:
    tokenize = make_tokenizer("13a", False)
    first = tokenize("a, b.")
    first.append("changed")  # a caller's change must not reach the cache
    assert tokenize("a, b.") == ["a", ",", "b", "."]
    clear_token_cache()
    assert tokenize("a, b.") == ["a", ",", "b", "."]


def test_nist_and_delta_nist_share_reference_counts() -> None:
    refs = items((("a b c d", 0.5), ("a b x", 1.0)), (("d e", 0.7), ("0 f e", -0.4)))
    hyps = ["a b c x", "0 f e d"]
    counts = DeltaNIST().reference_counts(refs)
    for metric in (NIST(), DeltaNIST(), NIST(mteval_compat=True)):
        shared = metric.stats(hyps, metric.index_from_counts(counts))
        assert np.array_equal(shared, metric.stats(hyps, metric.prepare(refs)))
    # Counts made by NIST, which ignores weights, still get ΔNIST's checks.
    negative = NIST().reference_counts(items((("a", -0.5),)))
    with pytest.raises(MetricInputError, match="item-0.*weight > 0"):
        DeltaNIST().index_from_counts(negative)
    with pytest.raises(MetricInputError, match="another tokenizer"):
        NIST(max_order=4).index_from_counts(counts)


@lru_cache(maxsize=8)
def _prepared(refs_files: tuple[str, ...], compat: bool) -> tuple[NIST, NISTIndex]:
    metric = NIST(mteval_compat=compat)
    streams = [(VECTORS_DIR / f).read_text(encoding="utf-8").split("\n")[:-1] for f in refs_files]
    refs = [
        RefItem(str(k), tuple(WeightedRef(s[k]) for s in streams)) for k in range(len(streams[0]))
    ]
    return metric, metric.prepare(refs)


def _wmt_score(vector: dict, compat: bool) -> float:
    metric, prepared = _prepared(tuple(vector["refs_files"]), compat)
    hyps = (VECTORS_DIR / vector["hyps_file"]).read_text(encoding="utf-8").split("\n")[:-1]
    return float(metric.scores_from_stats(metric.stats(hyps, prepared).sum(axis=0)))


def _check_parity(vector: dict) -> None:
    with_quirk = _wmt_score(vector, compat=True)
    assert f"{with_quirk:.4f}" == vector["mteval_nist"]
    assert with_quirk == pytest.approx(vector["nist_with_quirk"], abs=1e-9)
    assert _wmt_score(vector, compat=False) == pytest.approx(vector["nist_no_quirk"], abs=1e-6)


@pytest.mark.parametrize("vector", [VECTORS[0], VECTORS[16]], ids=lambda v: v["name"])
def test_wmt17_parity_with_mteval_sample(vector: dict) -> None:
    _check_parity(vector)


@pytest.mark.slow
@pytest.mark.parametrize("vector", VECTORS[1:16] + VECTORS[17:], ids=lambda v: v["name"])
def test_wmt17_parity_with_mteval_all_systems(vector: dict) -> None:
    _check_parity(vector)
