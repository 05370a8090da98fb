"""Per-item statistics with many references per item (DSTC7's shape: tens for most items,
hundreds for some) equal each metric's own computation on each reference set, bit for bit:
the shared indexes, AMBER's closest reference and 4-GRR's best reference change no number."""

import numpy as np
import pytest

from scoring.metrics import get_metric
from scoring.study.analysis.configs import (
    StudyOptions,
    order_configs,
    table_configs,
    theta_configs,
)
from scoring.study.analysis.data import ref_items
from scoring.study.analysis.stats import _members, compute_stats
from scoring.study.analysis.synthetic import SyntheticSpec, synthetic_study

# One item with 400 references, a few with tens, the rest with a handful.
REF_COUNTS = (400, 0, 1, 2, 3, 40, 5, 6, 70, 8, 9, 3, 2, 30, 1, 4, 5, 6)
OPTIONS = StudyOptions(thetas=(0.8, 0.2, -0.5))


@pytest.fixture(scope="module")
def data():
    spec = SyntheticSpec(
        n_items=len(REF_COUNTS),
        qualities=(0.3, 0.6, 0.9),
        n_pairs=3,
        ref_counts=REF_COUNTS,
        output_words=(10, 16),
    )
    return synthetic_study(spec)


@pytest.fixture(scope="module")
def configs():
    every = table_configs(OPTIONS) + theta_configs(OPTIONS) + order_configs(OPTIONS)
    return list({c.key: c for c in every}.values())


def test_the_data_has_an_item_with_hundreds_of_references(data):
    assert max(len(r) for r in data.refs) == 401


@pytest.mark.parametrize("processes", [1, 2])
def test_every_configuration_is_the_metrics_own_computation(data, configs, processes):
    stats, _ = compute_stats(data, configs, processes)
    for cfg in configs:
        metric = get_metric(cfg.metric, **cfg.metric_options)
        prepared = metric.prepare(ref_items(data, cfg.refset, cfg.theta)[0])
        for system in data.systems:
            hyps = [h or "" for h in data.outputs[system]]
            expected = np.asarray(metric.stats(hyps, prepared))
            assert np.array_equal(stats[cfg.key][system], expected), (cfg.key, system)


def test_members_flag_exactly_the_references_of_each_set(data, configs):
    for cfg in configs:
        flags = _members(data, cfg)
        expected = []
        for refs, (item) in zip(data.refs, ref_items(data, cfg.refset, cfg.theta)[0], strict=True):
            texts = [r.text for r in item.refs]
            expected += [r.text in texts for r in refs]
        assert flags.tolist() == expected, cfg.key
