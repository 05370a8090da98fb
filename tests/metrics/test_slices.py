"""Statistics of a slice of items equal, bit for bit, the rows of scoring every item at once."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scoring.metrics import (
    MetricInputError,
    RefItem,
    WeightedRef,
    build_index,
    entries,
    get_metric,
    load_index,
    save_index,
    stats_slice,
)
from scoring.metrics.api import prepared_for

WORDS = [
    "the", "cat", "sat", "on", "a", "mat", "0", "dog", "Barked", "loudly", ".", "!",
    "gangster", "quick", "brown", "fox",
]  # fmt: skip


def sentence(rng: random.Random, shortest: int = 0) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(shortest, 9)))


def random_corpus(seed: int, n: int = 23) -> tuple[list[str], list[RefItem]]:
    rng = random.Random(seed)
    items = []
    for i in range(n):
        refs = [
            WeightedRef(sentence(rng), round(rng.uniform(-1, 1), 2))
            for _ in range(rng.randint(1, 4))
        ]
        refs.append(WeightedRef(sentence(rng, 1), 1.0))  # ΔBLEU and ΔNIST need one w > 0
        items.append(RefItem(f"i{i}", tuple(refs)))
    hyps = [sentence(rng) for _ in range(n)]
    hyps[3] = ""  # an empty hypothesis among them
    return hyps, items


def sliced(metric, hyps, prepared, size):
    n = len(hyps)
    parts = [
        stats_slice(metric, hyps[a : a + size], prepared, a, min(a + size, n), n)
        for a in range(0, n, size)
    ]
    return np.concatenate(parts)


@pytest.mark.parametrize("name", list(entries()))
@pytest.mark.parametrize("seed", [1, 2])
def test_every_metric_slices_exactly(name, seed):
    hyps, items = random_corpus(seed)
    metric = get_metric(name)
    prepared = metric.prepare(items)
    whole = metric.stats(hyps, prepared)
    for size in (1, 4, 7, 23, 50):
        assert metric.prepared_slice(prepared, 0, 1) is not None  # no O(N) fallback
        np.testing.assert_array_equal(sliced(metric, hyps, prepared, size), whole)


@pytest.mark.parametrize(
    "name, opts",
    [
        ("dbleu", {"definition": "author-2019"}),
        ("dbleu", {"max_order": 2}),
        ("bleu", {"tokenize": "char"}),
        ("sbleu", {"lowercase": True}),
        ("bleu-sbp", {"ref_length": "shortest"}),
        ("nist", {"mteval_compat": True}),
    ],
)
def test_slices_with_other_options(name, opts):
    hyps, items = random_corpus(7, n=31)
    metric = get_metric(name, **opts)
    prepared = metric.prepare(items)
    whole = metric.stats(hyps, prepared)
    for size in (3, 10):
        np.testing.assert_array_equal(sliced(metric, hyps, prepared, size), whole)


@pytest.mark.parametrize("name", list(entries()))
def test_slices_of_a_memory_mapped_index_equal_the_built_one(tmp_path, name):
    hyps, items = random_corpus(3)
    metric = get_metric(name)
    whole = metric.stats(hyps, metric.prepare(items))
    save_index(tmp_path / "refs.idx", build_index(metric, items))
    prepared = prepared_for(metric, load_index(tmp_path / "refs.idx"))
    np.testing.assert_array_equal(metric.stats(hyps, prepared), whole)
    np.testing.assert_array_equal(sliced(metric, hyps, prepared, 5), whole)


def test_a_metric_that_cannot_slice_scores_the_slice_among_blanks(monkeypatch):
    hyps, items = random_corpus(4)
    metric = get_metric("4grr")
    prepared = metric.prepare(items)
    monkeypatch.setattr(type(metric), "prepared_slice", lambda self, p, a, b: None)
    np.testing.assert_array_equal(sliced(metric, hyps, prepared, 6), metric.stats(hyps, prepared))


def test_a_slice_must_match_its_hypotheses():
    hyps, items = random_corpus(5)
    metric = get_metric("bleu")
    with pytest.raises(MetricInputError, match="hypotheses for items"):
        stats_slice(metric, hyps[:3], metric.prepare(items), 0, 4, len(items))
