"""The item bootstrap of the study's intervals, against a direct re-implementation, and why it
differs from intervals that treat units as independent."""

import dataclasses

import numpy as np
import pytest
from scipy import stats as sps

from scoring.metrics import get_metric
from scoring.study.analysis.configs import StudyOptions, table_configs
from scoring.study.analysis.correlation import kendall_many, kendall_rows
from scoring.study.analysis.data import StudyData
from scoring.study.analysis.engine import run_study
from scoring.study.analysis.observe import BootstrapScheme, observations, pair_groups
from scoring.study.analysis.stats import compute_stats
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study
from scoring.study.analysis.table import coefficients
from scoring.study.analysis.units import ItemBootstrap

SEED = 99


def _small():
    data = synthetic_study(SyntheticSpec(n_items=40, qualities=(0.3, 0.5, 0.8), n_pairs=3))
    # One pair loses a few items: its usable items differ from the other pairs'.
    pair = data.pairs[2]
    data.human["quality"][pair] = data.human["quality"][pair].copy()
    data.human["quality"][pair][[3, 17, 18]] = np.nan
    return data


def _slow_draws(n_items, usable, n_draws, replicate, n_replicates):
    """The first `n_draws` usable draws of one replicate, walking its sequence one by one."""
    usable, taken, chunk = set(usable.tolist()), [], 0
    while len(taken) < n_draws:
        rng = np.random.default_rng([SEED, 0xB007, chunk])
        row = rng.integers(0, n_items, size=(n_replicates, n_items), dtype=np.int32)[replicate]
        taken += [int(i) for i in row if int(i) in usable][: n_draws - len(taken)]
        chunk += 1
    return taken


def test_bootstrap_replicates_equal_a_direct_reimplementation():
    data, size, n_boot = _small(), 4, 12
    cfg = table_configs(StudyOptions(metrics=("bleu",)))[2]  # bleu, all references
    stats, _ = compute_stats(data, [cfg])
    scheme = BootstrapScheme(ItemBootstrap(len(data.item_ids), n_boot, SEED))
    obs = observations(data, stats, [cfg], scheme, size)
    coefs = coefficients(obs, [cfg.key], with_tau=True)[cfg.key]
    metric = get_metric("bleu", max_order=2)
    groups = pair_groups(data)
    assert len(groups) == 2
    for b in range(n_boot):
        m_units, q_units = [], []
        for group in groups:
            n_units = group.usable.size // size
            draws = _slow_draws(40, group.usable, n_units * size, b, n_boot)
            for p in group.pairs:
                a, c = data.pairs[p]
                for u in range(n_units):
                    items = draws[u * size : (u + 1) * size]
                    score_a = metric.scores_from_stats(stats[cfg.key][a][items].sum(axis=0))
                    score_c = metric.scores_from_stats(stats[cfg.key][c][items].sum(axis=0))
                    m_units.append(score_a - score_c)
                    q_units.append(data.human["quality"][(a, c)][items].mean())
        assert obs.metric[cfg.key][b] == pytest.approx(m_units, abs=1e-9)
        assert obs.human["quality"][b] == pytest.approx(q_units, abs=1e-9)
        rho = sps.spearmanr(obs.metric[cfg.key][b], obs.human["quality"][b]).statistic
        tau = sps.kendalltau(obs.metric[cfg.key][b], obs.human["quality"][b]).statistic
        assert coefs.rho["quality"][b] == pytest.approx(rho, abs=1e-12)
        assert coefs.tau["quality"][b] == pytest.approx(tau, abs=1e-12)


def test_the_table_interval_is_the_percentiles_of_the_replicates():
    data = _small()
    options = StudyOptions(
        unit_size=4,
        assignments=20,
        bootstrap=30,
        seed=SEED,
        metrics=("bleu", "dbleu"),
        sweeps=False,
    )
    result = run_study(data, options)
    configs = table_configs(options)
    stats, _ = compute_stats(data, configs)
    scheme = BootstrapScheme(ItemBootstrap(len(data.item_ids), 30, SEED))
    # M = 4 leaves a pair fewer than 10 units here: the study fits a smaller size.
    boot = observations(data, stats, configs, scheme, result["unit_size"])
    coefs = coefficients(boot, [c.key for c in configs], with_tau=True)
    for row in result["table"]:
        low, high = np.percentile(coefs[row["key"]].rho["quality"], [2.5, 97.5])
        assert (row["rho"]["low"], row["rho"]["high"]) == pytest.approx((low, high), abs=1e-12)
        if "vs_baseline" in row:
            base = coefs[row["vs_baseline"]["baseline"]].rho["quality"]
            d = coefs[row["key"]].rho["quality"] - base
            assert row["vs_baseline"]["low"] == pytest.approx(np.percentile(d, 2.5), abs=1e-12)


def test_pairs_with_the_same_items_see_the_same_resampled_items():
    data = synthetic_study(SyntheticSpec(n_items=30, qualities=(0.3, 0.5, 0.8), n_pairs=3))
    bootstrap = ItemBootstrap(30, 5, SEED)
    (group,) = pair_groups(data)
    first = bootstrap.units(group.usable, 6, 5).matrix.toarray()
    again = ItemBootstrap(30, 5, SEED).units(group.usable, 6, 5).matrix.toarray()
    assert np.array_equal(first, again)  # deterministic from the seed
    # Items are drawn with replacement: some unit sums an item twice, some item sits out.
    per_replicate = first.reshape(5, 6, 30).sum(axis=1)
    assert first.max() >= 2 and (per_replicate == 0).any()
    assert (per_replicate.sum(axis=1) == 30).all()


def _independent_copy(data: StudyData) -> StudyData:
    """The same pairs, but each pair judged on its own copy of the items (no item shared)."""
    n, pairs = len(data.item_ids), data.pairs
    ids = [f"{i}@{p}" for p in range(len(pairs)) for i in data.item_ids]
    outputs = {s: list(texts) * len(pairs) for s, texts in data.outputs.items()}
    human = {}
    for criterion, by_pair in data.human.items():
        human[criterion] = {}
        for p, pair in enumerate(pairs):
            values = np.full(n * len(pairs), np.nan)
            values[p * n : (p + 1) * n] = by_pair[pair]
            human[criterion][pair] = values
    return StudyData(ids, data.refs * len(pairs), outputs, list(pairs), human)


def _fisher_width(r, n_units, z_var=1.06):
    """The width of the interval used before: Fisher's z with N independent units."""
    half = 1.959964 * np.sqrt(z_var / (n_units - 3))
    return np.tanh(np.arctanh(r) + half) - np.tanh(np.arctanh(r) - half)


@pytest.mark.slow  # two studies of 28 pairs: make test and CI, not test-fast
def test_items_recurring_in_every_pair_widen_the_interval():
    # 8 systems, all 28 pairs judged on the same 60 items, against the same pairs each judged
    # on its own copy of the items: the same ρ, the same number of units, so the same Fisher
    # interval; resampling items knows that shared items make the pairs move together.
    qualities = tuple(0.2 + 0.09 * k for k in range(8))
    shared = synthetic_study(SyntheticSpec(n_items=60, qualities=qualities, n_pairs=28))
    independent = _independent_copy(shared)
    options = StudyOptions(
        unit_size=3, assignments=40, bootstrap=300, metrics=("bleu", "dbleu"), sweeps=False
    )
    tables = []
    for data in (shared, independent):
        result = run_study(dataclasses.replace(data, system_scores={}), options)
        tables.append({row["key"]: (row, result["n_units"]) for row in result["table"]})
    for key, (row, n_units) in tables[0].items():
        other, other_units = tables[1][key]
        assert n_units == other_units
        assert row["rho"]["value"] == pytest.approx(other["rho"]["value"], abs=0.03)
        old = _fisher_width(row["rho"]["value"], n_units)
        assert old == pytest.approx(_fisher_width(other["rho"]["value"], other_units), rel=0.05)
        for coef in ("rho", "tau"):
            width = row[coef]["high"] - row[coef]["low"]
            assert width > 1.25 * (other[coef]["high"] - other[coef]["low"])


@pytest.mark.parametrize("n", [64, 130])
def test_kendall_over_several_words_and_criteria_equals_scipy(n):
    rng = np.random.default_rng(n)
    m = np.round(rng.normal(size=(6, n)), 1)  # ties
    qs = [rng.integers(-3, 4, size=(6, n)).astype(float), rng.normal(size=(6, n))]
    many = kendall_many(m, qs)
    for q, got in zip(qs, many):
        assert np.array_equal(got, kendall_rows(m, q))
        for k in range(len(m)):
            assert got[k] == pytest.approx(sps.kendalltau(m[k], q[k]).statistic, abs=1e-12)
