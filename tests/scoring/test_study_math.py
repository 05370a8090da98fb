"""The study's statistics against scipy, and the known-answer synthetic study."""

import multiprocessing

import numpy as np
import pytest
from scipy import stats as sps

from scoring.metrics import get_metric
from scoring.study.analysis.configs import StudyOptions, table_configs
from scoring.study.analysis.correlation import (
    average_ranks,
    kendall_rows,
    shared_pair_order,
    spearman_rows,
)
from scoring.study.analysis.data import ref_items
from scoring.study.analysis.engine import run_study
from scoring.study.analysis.stats import bleu_rows_of_order, compute_stats, sbleu_rows
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study
from scoring.study.analysis.units import assignments_for_pair, column_sums, float32_exact


def _rows(seed, ties, n=40):
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(20, n))
    q = rng.integers(-3, 4, size=(20, n)).astype(float) if ties else rng.normal(size=(20, n))
    m[:, :5] = 0.0  # ties in the metric too
    return m, q


@pytest.mark.parametrize("n", [40, 37])
@pytest.mark.parametrize("ties", [False, True])
def test_spearman_and_kendall_equal_scipy(ties, n):
    m, q = _rows(3, ties, n)
    rho = spearman_rows(m, q)
    tau = kendall_rows(m, q)
    shared = kendall_rows(m, q, shared_pair_order(q))
    for k in range(len(m)):
        assert rho[k] == pytest.approx(sps.spearmanr(m[k], q[k]).statistic, abs=1e-12)
        assert tau[k] == pytest.approx(sps.kendalltau(m[k], q[k]).statistic, abs=1e-12)
    assert np.array_equal(tau, shared)


def test_kendall_of_a_constant_row_is_nan():
    m, q = _rows(4, True)
    m[2] = 1.0
    tau = kendall_rows(m, q)
    assert np.isnan(tau[2]) and np.isfinite(tau[3])


@pytest.mark.parametrize("shape", [(7, 30), (3, 4, 25), (5, 1), (1, 200)])
def test_average_ranks_equal_scipy(shape):
    x = np.random.default_rng(1).integers(0, 6, size=shape).astype(float)
    assert np.array_equal(average_ranks(x), sps.rankdata(x, axis=-1))


def test_units_are_sums_of_their_items():
    rows = np.arange(30, dtype=float).reshape(10, 3)
    units = assignments_for_pair(10, 3, 5, seed=1, pair_index=0)
    sums = column_sums(units, rows)
    assert sums.shape == (3, 5, 3)  # columns, assignments, units
    # Each assignment leaves one item out and uses every other once.
    for a in range(5):
        assert 0 <= rows.sum(axis=0)[0] - sums[0, a].sum() <= rows[:, 0].max()


@pytest.mark.parametrize("workers", [1, 2])
def test_column_sums_are_exact_in_float32_only_where_that_is_exact(workers):
    rng = np.random.default_rng(5)
    n = 300
    counts = rng.integers(0, 20, size=(n, 70)).astype(float)  # summed in float32
    fractions = rng.random((n, 3)) / 3  # float64
    huge = np.full((n, 1), 2.0**20 + 1)  # integers, but sums pass 2**24: float64
    rows = np.hstack([counts[:, :40], fractions, huge, counts[:, 40:]])
    assert float32_exact(rows).tolist() == [True] * 40 + [False] * 4 + [True] * 30
    units = assignments_for_pair(n, 25, 40, seed=3, pair_index=1)
    got = column_sums(units, rows, workers)
    dense = units.matrix.toarray()  # the 0/1 unit membership, summed here in float64
    expected = (dense @ rows).T.reshape(rows.shape[1], 40, n // 25)
    assert np.array_equal(got[:40], expected[:40])
    assert np.array_equal(got[44:], expected[44:])
    assert np.array_equal(got[43], expected[43])  # exact in float64
    assert np.allclose(got[40:43], expected[40:43], rtol=1e-14, atol=0)


def test_lower_orders_and_sbleu_come_from_order_four_rows():
    data = synthetic_study(SyntheticSpec(n_items=30))
    items, _ = ref_items(data, "all")
    hyps = data.outputs["sys2"]
    full = get_metric("bleu", max_order=4).stats_direct(hyps, items)
    for n in (1, 2, 3):
        direct = get_metric("bleu", max_order=n).stats_direct(hyps, items)
        assert np.allclose(bleu_rows_of_order(full, n), direct)
        sb = get_metric("sbleu", max_order=n).stats_direct(hyps, items)
        assert np.allclose(sbleu_rows(full, n, data.item_ids), sb)


@pytest.mark.slow  # a 300-item study with sweeps: make test and CI, not test-fast
def test_delta_bleu_with_informative_weights_beats_bleu():
    data = synthetic_study(SyntheticSpec(n_items=300))
    options = StudyOptions(unit_size=25, assignments=100, metrics=("bleu", "dbleu", "sbleu"))
    result = run_study(data, options)
    rho = {row["key"]: row["rho"]["value"] for row in result["table"]}
    assert rho["dbleu|all|n2"] > rho["bleu|all|n2"] + 0.2
    assert rho["dbleu|all|n2"] > rho["sbleu|all|n2"]
    vs = next(r for r in result["table"] if r["key"] == "bleu|all|n2")["vs_baseline"]
    assert vs["diff"] < 0 and vs["p"] < 0.05
    assert set(result["sweeps"]) == {"theta", "order", "unit_size"}
    assert [x for x, _ in result["sweeps"]["order"]["dbleu"]] == [1, 2, 3, 4]
    row = result["table"][0]
    assert row["rho"]["low"] < row["rho"]["value"] < row["rho"]["high"]


def test_statistics_stay_in_one_process_inside_a_daemonic_process(monkeypatch):
    # A Celery prefork child is daemonic and may not fork: the statistics must still come.
    data = synthetic_study(SyntheticSpec(n_items=40))
    configs = table_configs(StudyOptions(metrics=("bleu", "4grr")))
    expected, _ = compute_stats(data, configs, 1)
    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True)
    got, _ = compute_stats(data, configs, 2)
    assert set(got) == set(expected)
    for key, rows in expected.items():
        for system, values in rows.items():
            assert np.array_equal(got[key][system], values)
