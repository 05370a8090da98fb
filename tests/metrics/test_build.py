"""An index file built a range of items at a time is the whole build's file, byte for byte."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.metrics import (
    MetricInputError,
    RefItem,
    WeightedRef,
    build_index,
    compute_stats,
    get_metric,
    load_index,
    save_index,
    write_index,
)
from scoring.metrics.arrayfile import read_arrays

from .test_nist_index import weighted_corpus

N = 30
RANGES = [1, 2, 7, 13, N, 1000]  # one item, sizes that do not divide N, all, more than all

METRICS = [
    ("dbleu", {}), ("dbleu", {"definition": "author-2019", "max_order": 2}),
    ("bleu", {"lowercase": True}), ("sbleu", {"tokenize": "char"}), ("bleu-sbp", {}),
    ("nist", {}), ("nist", {"mteval_compat": True, "tokenize": "mteval"}),
    ("dnist", {"mteval_compat": True}), ("dnist", {"lowercase": True, "max_order": 3}),
]  # fmt: skip


def both(tmp_path, name, opts, items, range_items):
    metric = get_metric(name, **opts)
    whole, ranged = tmp_path / "whole.idx", tmp_path / "ranged.idx"
    save_index(whole, build_index(metric, items))
    write_index(ranged, metric, items, range_items=range_items)
    return metric, whole, ranged


@pytest.mark.parametrize("range_items", RANGES)
@pytest.mark.parametrize("name, opts", METRICS)
def test_ranged_build_writes_the_whole_builds_arrays_and_file(tmp_path, name, opts, range_items):
    _, items = weighted_corpus(seed=range_items, n=N)
    _, whole, ranged = both(tmp_path, name, opts, items, range_items)
    a, meta_a = read_arrays(whole)
    b, meta_b = read_arrays(ranged)
    assert list(a) == list(b) and meta_a == meta_b
    for key in a:
        assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), key
    assert whole.read_bytes() == ranged.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ranged.idx", "whole.idx"]


@pytest.mark.parametrize("range_items", [1, 4, 11])
@pytest.mark.parametrize("name, opts", METRICS)
def test_every_metric_scores_the_same_against_a_ranged_index(tmp_path, name, opts, range_items):
    hyps, items = weighted_corpus(seed=7, n=N)
    metric, whole, ranged = both(tmp_path, name, opts, items, range_items)
    for scorer in {metric.name, "dbleu", "bleu", "sbleu", "bleu-sbp", "nist", "dnist"}:
        other = get_metric(scorer)
        np.testing.assert_array_equal(
            compute_stats(other, hyps, index=load_index(ranged)),
            compute_stats(other, hyps, index=load_index(whole)),
        )


@pytest.mark.parametrize("name", ["dbleu", "nist", "dnist", "4grr"])
def test_an_empty_test_set_and_metrics_without_a_stored_index(tmp_path, name):
    _, items = weighted_corpus(seed=3, n=5)
    for subset in ([], items):
        _, whole, ranged = both(tmp_path, name, {}, subset, 2)
        assert whole.read_bytes() == ranged.read_bytes()


def test_errors_name_the_same_item_as_the_whole_build(tmp_path):
    _, items = weighted_corpus(seed=5, n=12)
    bad = [*items[:9], RefItem("x", (WeightedRef("a b", -0.5),)), *items[9:]]
    for name, broken in [("dnist", bad), ("dbleu", [*items, RefItem("y", ())])]:
        with pytest.raises(MetricInputError) as whole:
            build_index(get_metric(name), broken)
        with pytest.raises(MetricInputError) as ranged:
            write_index(tmp_path / "x.idx", name, broken, range_items=4)
        assert str(ranged.value) == str(whole.value)
    assert list(tmp_path.iterdir()) == []  # no partial file, no spools


def test_a_range_size_below_one_is_refused(tmp_path):
    with pytest.raises(ValueError, match="range_items"):
        write_index(tmp_path / "x.idx", "dbleu", weighted_corpus(0, 3)[1], range_items=0)
