"""Bootstrap CI and paired tests: vectorised, and equal to sacrebleu's procedures."""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import pytest
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.significance import _compute_p_value, estimate_ci

from scoring.metrics import (
    bootstrap_ci,
    equal_scores_p,
    get_metric,
    holm_adjust,
    paired_approximate_randomization,
    paired_bootstrap,
    paired_bootstrap_matrix,
)

RNG = np.random.default_rng(0)
N = 37


def _stats():
    tot = RNG.integers(5, 20, size=N).astype(float)
    totals = np.stack([tot - k for k in range(4)], 1)
    correct = np.floor(totals * RNG.uniform(0.1, 0.9, size=(N, 4)))
    lens = tot + RNG.integers(-3, 4, size=N)
    return np.column_stack([tot, lens, correct, totals])


BASE, SYS = _stats(), _stats()
METRIC = get_metric("bleu")
SB = BLEU()


def _sb_score(row):
    return SB._compute_score_from_stats(list(row)).score


def test_bootstrap_ci_matches_sacrebleu_resampling():
    ci = bootstrap_ci(METRIC, BASE, n_samples=200, seed=7)
    idx = np.random.default_rng(7).choice(N, size=(200, N), replace=True)
    scores = np.array([_sb_score(BASE[i].sum(0)) for i in idx])
    mean, half = estimate_ci(scores)
    assert ci.mean == pytest.approx(mean, abs=1e-9)
    assert (ci.high - ci.low) / 2 == pytest.approx(half, abs=1e-9)
    assert ci.low <= ci.score <= ci.high


def test_paired_bootstrap_p_value_as_sacrebleu():
    res = paired_bootstrap(METRIC, BASE, SYS, n_samples=300, seed=3)
    idx = np.random.default_rng(3).choice(N, size=(300, N), replace=True)
    bl = np.array([_sb_score(BASE[i].sum(0)) for i in idx])
    sy = np.array([_sb_score(SYS[i].sum(0)) for i in idx])
    diffs = np.abs(sy - bl)
    real = abs(_sb_score(BASE.sum(0)) - _sb_score(SYS.sum(0)))
    assert res.p_value == pytest.approx(_compute_p_value(diffs - diffs.mean(), real))


def test_paired_ar_p_value_as_sacrebleu_in_blocks(monkeypatch):
    import scoring.metrics.significance as sig

    monkeypatch.setattr(sig, "_BLOCK_CELLS", 64 * N)  # force several blocks
    res = paired_approximate_randomization(METRIC, BASE, SYS, n_samples=500, seed=11)
    pos = np.random.default_rng(11).integers(2, size=(500, N), dtype=bool)
    a = [_sb_score(r) for r in pos @ BASE + ~pos @ SYS]
    b = [_sb_score(r) for r in ~pos @ BASE + pos @ SYS]
    real = abs(_sb_score(BASE.sum(0)) - _sb_score(SYS.sum(0)))
    assert res.p_value == pytest.approx(_compute_p_value(np.abs(np.array(a) - b), real))


def test_system_against_itself_follows_sacrebleu_strict_inequality():
    # sacrebleu counts samples strictly above the observed difference (0 here): p = 1 / (n + 1)
    assert paired_bootstrap(METRIC, BASE, BASE, 100).p_value == pytest.approx(1 / 101)
    assert paired_approximate_randomization(METRIC, BASE, BASE, 100).p_value == pytest.approx(
        1 / 101
    )


def test_equal_scores_rank_with_p_1_while_the_tests_keep_sacrebleus_value():
    for test in (paired_bootstrap, paired_approximate_randomization):
        itself = test(METRIC, BASE, BASE, 100)
        assert itself.p_value == pytest.approx(1 / 101) and itself.rank_p_value == 1.0
        other = test(METRIC, BASE, SYS, 100)
        assert other.rank_p_value == other.p_value < 1.0


def test_equal_scores_p_sets_1_where_scores_are_equal_as_math_isclose_says():
    scores = np.array([50.0, 50.0 + 1e-10, 49.999, 0.0, 1e-13])
    p = np.full((5, 5), 0.01)
    got = equal_scores_p(p, scores[:, None], scores[None, :])
    close = [[math.isclose(a, b, abs_tol=1e-12) for b in scores] for a in scores]
    assert np.array_equal(got == 1.0, np.array(close))
    assert got[0, 1] == got[3, 4] == 1.0 and got[0, 2] == 0.01
    assert float(equal_scores_p(0.02, 3.0, 3.0)) == 1.0
    assert float(equal_scores_p(0.02, 3.0, 4.0)) == 0.02


def _bleu_rows(rng, n_items: int, quality: float) -> np.ndarray:
    rows = []
    for _ in range(n_items):
        matches = [int(rng.binomial(10 - n, min(quality * (1 - 0.1 * n), 1))) for n in range(4)]
        rows.append([10, 10, *matches, 10, 9, 8, 7])
    return np.array(rows, dtype=float)


def test_the_matrix_equals_each_pairs_own_bootstrap():
    bleu = get_metric("bleu")
    rng = np.random.default_rng(1)
    systems = [_bleu_rows(rng, 60, q) for q in (0.9, 0.85, 0.5, 0.2)]
    matrix = paired_bootstrap_matrix(bleu, systems)
    for i, j in permutations(range(4), 2):
        assert matrix[i, j] == paired_bootstrap(bleu, systems[i], systems[j]).p_value
    assert np.all(np.diag(matrix) == 1.0)


@pytest.mark.parametrize(
    ("raw", "adjusted"),
    [
        ([0.01, 0.04, 0.03], [0.03, 0.06, 0.06]),
        ([0.5], [0.5]),
        ([0.001, 0.2, 0.01, 0.9], [0.004, 0.4, 0.03, 0.9]),
        ([], []),
    ],
)
def test_holm_by_hand(raw, adjusted):
    assert holm_adjust(np.array(raw)) == pytest.approx(adjusted)
