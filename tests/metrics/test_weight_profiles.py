"""The weight profile: the metric's statistics as a function of the weights, bit for bit."""

from __future__ import annotations

import copy
import dataclasses
import itertools

import numpy as np
import pytest

from scoring.metrics import (
    IndexFile,
    MetricInputError,
    RefItem,
    WeightedRef,
    WeightProfile,
    build_index,
    concat_profiles,
    get_metric,
    load_index,
    save_index,
    weight_profile,
    write_index,
)
from scoring.metrics import bleu as bleu_module
from scoring.metrics import weight_profiles as wp_module
from scoring.metrics.refset import RefSet
from tests.metrics.helpers import random_corpus, reweighted

CASES = [
    ("dbleu", {}),
    ("dbleu", {"definition": "author-2019"}),
    ("dbleu", {"tokenize": "none", "max_order": 3}),
    ("dbleu", {"definition": "author-2019", "tokenize": "none", "max_order": 3}),
    ("dbleu", {"tokenize": "char", "max_order": 4}),
    ("dbleu", {"definition": "author-2019", "tokenize": "char", "max_order": 2}),
    ("dbleu", {"lowercase": True, "max_order": 1}),
    ("dbleu", {"definition": "author-2019", "lowercase": True, "ref_length": "shortest"}),
    ("dnist", {}),
    ("dnist", {"mteval_compat": False}),
    ("dnist", {"lowercase": True, "max_order": 2, "tokenize": "none"}),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in opts.items())}" for name, opts in CASES]


def random_weights(refs: RefSet, seed: int) -> np.ndarray:
    """Weights in [-1, 1], rounded to 0.001 (ties happen), one positive per item."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(-1, 1, size=len(refs.weights)).round(3)
    first = refs.ptr[:-1] + rng.integers(0, np.diff(refs.ptr))
    w[first] = rng.uniform(0.001, 1, size=refs.n_items).round(3)
    return w


def weight_sets(refs: RefSet, seed: int) -> list[np.ndarray]:
    return [refs.weights, *(random_weights(refs, seed * 10 + k) for k in range(3))]


def assert_same_profile(a: WeightProfile, b: WeightProfile) -> None:
    arrays_a, arrays_b = {}, {}
    assert a.to_arrays(arrays_a) == b.to_arrays(arrays_b)
    assert arrays_a.keys() == arrays_b.keys()
    for name in arrays_a:
        assert arrays_a[name].dtype == arrays_b[name].dtype, name
        assert np.array_equal(arrays_a[name], arrays_b[name]), name


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_rows_equal_stats_direct_bit_for_bit(name, opts, seed):
    hyps, items = random_corpus(seed, n=29)
    metric = get_metric(name, **opts)
    profile = weight_profile(metric, hyps, items)
    for w in weight_sets(RefSet.of(items), seed):
        expected = metric.stats_direct(hyps, reweighted(items, w))
        assert np.array_equal(profile.rows(w), expected)


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_rows_equal_the_index_path(name, opts):
    hyps, items = random_corpus(4, n=29)
    metric = get_metric(name, **opts)
    index = metric.prepare(items)
    from_index = weight_profile(metric, hyps, items, index)
    direct = weight_profile(metric, hyps, items)
    for w in weight_sets(RefSet.of(items), 4):
        expected = metric.stats(hyps, metric.prepare(reweighted(items, w)))
        assert np.array_equal(from_index.rows(w), expected)
        # ΔBLEU's direct and index routes sum an item's n-grams in another order (rounding);
        # ΔNIST has one route.
        np.testing.assert_allclose(direct.rows(w), expected, rtol=1e-14, atol=1e-12)


@pytest.mark.parametrize("name, opts", CASES[:2] + CASES[-2:], ids=IDS[:2] + IDS[-2:])
def test_a_large_corpus_is_built_in_the_slices_stats_direct_cuts(monkeypatch, name, opts):
    monkeypatch.setattr(bleu_module, "DIRECT_ITEMS", 7)
    hyps, items = random_corpus(5, n=30)
    metric = get_metric(name, **opts)
    profile = weight_profile(metric, hyps, items)
    for w in weight_sets(RefSet.of(items), 5):
        assert np.array_equal(profile.rows(w), metric.stats_direct(hyps, reweighted(items, w)))
    refs = RefSet.of(items)
    index = metric.prepare(items) if name == "dnist" else None  # the test set's information
    cuts = [0, 7, 14, 28, 30]  # at the builder's own cuts: the same arrays
    parts = [
        weight_profile(
            metric, hyps[a:b], refs.part(a, b), index and metric.prepared_slice(index, a, b)
        )
        for a, b in itertools.pairwise(cuts)
    ]
    assert_same_profile(concat_profiles(parts), profile)


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_profiles_of_index_slices_join_into_the_whole(name, opts):
    hyps, items = random_corpus(6, n=23)
    metric = get_metric(name, **opts)
    index, refs = metric.prepare(items), RefSet.of(items)
    whole = weight_profile(metric, hyps, refs, index)
    cuts = [0, 1, 9, 10, 23]
    parts = [
        weight_profile(metric, hyps[a:b], refs.part(a, b), metric.prepared_slice(index, a, b))
        for a, b in itertools.pairwise(cuts)
    ]
    assert_same_profile(concat_profiles(parts), whole)


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_the_index_keeps_token_ids_that_give_the_tokenized_references_profile(tmp_path, name, opts):
    # The index keeps each reference's token ids, so a profile needs no tokenizing; from a
    # file written before it kept them, the references are tokenized again: the same profile.
    hyps, items = random_corpus(8, n=23)
    metric = get_metric(name, **opts)
    refs = RefSet.of(items)
    write_index(tmp_path / "ranged.idx", metric, items, range_items=5)
    index = load_index(tmp_path / "ranged.idx").prepared
    tables = index.tables if name == "dnist" else index
    assert tables.ref_tokens is not None and tables.ref_tokens.dtype == np.int32
    assert int(np.sum(tables.ref_lens)) == len(tables.ref_tokens)
    without = copy.copy(index)
    if name == "dnist":
        without.tables = dataclasses.replace(tables, ref_tokens=None)
    else:
        without = dataclasses.replace(tables, ref_tokens=None)
    for a, b in [(0, 23), (3, 11), (22, 23)]:
        kept = weight_profile(
            metric, hyps[a:b], refs.part(a, b), metric.prepared_slice(index, a, b)
        )
        tokenized = weight_profile(
            metric, hyps[a:b], refs.part(a, b), metric.prepared_slice(without, a, b)
        )
        assert_same_profile(kept, tokenized)


def test_an_index_file_without_token_ids_still_loads_and_profiles(tmp_path):
    hyps, items = random_corpus(9, n=12)
    metric = get_metric("dbleu")
    index = metric.prepare(items)
    index.ref_tokens = None  # as a file written before they were kept
    save_index(tmp_path / "old.idx", IndexFile("dbleu", dict(metric.opts), RefSet.of(items), index))
    loaded = load_index(tmp_path / "old.idx").prepared
    assert loaded.ref_tokens is None
    profile = weight_profile(metric, hyps, items, loaded)
    assert np.array_equal(profile.rows(RefSet.of(items).weights), metric.stats(hyps, loaded))


@pytest.mark.parametrize("name, opts", CASES, ids=IDS)
def test_a_slice_whose_references_are_shorter_than_the_order(name, opts):
    # One item whose references have no n-gram of the highest orders: its index slice has
    # empty tables there (a leaderboard's chunk of one short item meets this).
    items = [
        RefItem("a", (WeightedRef("long enough reference here for all", 0.5),)),
        RefItem("b", (WeightedRef("short", 1.0), WeightedRef("also", -0.5))),
    ]
    hyps = ["long enough reference", "short also short"]
    metric = get_metric(name, **opts)
    index, refs = metric.prepare(items), RefSet.of(items)
    part = weight_profile(metric, hyps[1:], refs.part(1, 2), metric.prepared_slice(index, 1, 2))
    rows = metric.stats(hyps[1:], metric.prepared_slice(index, 1, 2))
    assert np.array_equal(part.rows(refs.part(1, 2).weights), rows)


@pytest.mark.parametrize("name, opts", [CASES[0], CASES[1], CASES[8]], ids=[IDS[0], IDS[1], IDS[8]])
def test_save_and_load_round_trip(tmp_path, name, opts):
    hyps, items = random_corpus(7)
    metric = get_metric(name, **opts)
    profile = weight_profile(metric, hyps, items)
    profile.save(tmp_path / "p.prof")
    loaded = WeightProfile.load(tmp_path / "p.prof")
    assert_same_profile(loaded, profile)
    assert loaded.orders[0].ref.dtype == np.int32 and not loaded.orders[0].ref.flags.writeable
    assert loaded.orders[0].amount.dtype == np.uint8  # counts below 256
    w = random_weights(RefSet.of(items), 7)
    assert np.array_equal(loaded.rows(w), profile.rows(w))
    assert profile.nbytes < 100_000


def test_a_damaged_or_foreign_file_is_refused(tmp_path):
    hyps, items = random_corpus(8)
    path = tmp_path / "p.prof"
    weight_profile(get_metric("dbleu"), hyps, items).save(path)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(MetricInputError, match="not a weight profile"):
        WeightProfile.load(path)
    path.write_bytes(b"hello")
    with pytest.raises(MetricInputError, match="not a weight profile"):
        WeightProfile.load(path)
    save_index(path, build_index("dbleu", items))  # an array file, but an index
    with pytest.raises(MetricInputError, match=r"p.prof: not a weight profile$"):
        WeightProfile.load(path)


@pytest.mark.parametrize("cells", [wp_module.BLOCK_CELLS, 50])
@pytest.mark.parametrize("name, opts", [CASES[0], CASES[1], CASES[9]], ids=[IDS[0], IDS[1], IDS[9]])
def test_summed_equals_the_loop_over_replicates(monkeypatch, name, opts, cells):
    monkeypatch.setattr(wp_module, "BLOCK_CELLS", cells)
    hyps, items = random_corpus(9, n=31)
    metric = get_metric(name, **opts)
    profile = weight_profile(metric, hyps, items)
    refs = RefSet.of(items)
    rng = np.random.default_rng(9)
    weights = np.stack([random_weights(refs, k) for k in range(6)])
    weights[2, refs.ptr[4] : refs.ptr[5]] = -0.5  # an item with no positive weight
    counts = rng.integers(0, 3, size=(6, refs.n_items)).astype(float)
    loop = np.stack([c @ profile.rows(w) for w, c in zip(weights, counts)])
    np.testing.assert_allclose(profile.summed(weights, counts), loop, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "name, opts, message",
    [
        ("bleu", {}, "ignores weights"),
        ("sbleu", {}, "ignores weights"),
        ("nist", {}, "ignores weights"),
        ("4grr", {}, "ignores weights"),
    ],
)
def test_other_metrics_have_no_profile(name, opts, message):
    hyps, items = random_corpus(10, n=4)
    with pytest.raises(MetricInputError, match=message):
        weight_profile(get_metric(name, **opts), hyps, items)


def test_bad_inputs_are_refused_with_a_message():
    hyps, items = random_corpus(11, n=5)
    metric = get_metric("dbleu")
    with pytest.raises(MetricInputError, match="4 hypotheses for 5 items"):
        weight_profile(metric, hyps[:4], items)
    with pytest.raises(MetricInputError, match="other options"):
        weight_profile(metric, hyps, items, get_metric("bleu", lowercase=True).prepare(items))
    with pytest.raises(MetricInputError, match="other references"):
        weight_profile(metric, hyps[:4], items[:4], metric.prepare(items))
    profile = weight_profile(metric, hyps, items)
    with pytest.raises(MetricInputError, match="references"):
        profile.rows(np.ones(3))
    nist = weight_profile(get_metric("dnist"), hyps, items)
    with pytest.raises(MetricInputError, match="cannot be joined"):
        concat_profiles([profile, nist])


@pytest.mark.parametrize("name", ["dbleu", "dnist"])
def test_an_item_without_a_positive_weight_gets_a_zero_denominator(name):
    hyps, items = random_corpus(12, n=8)
    profile = weight_profile(get_metric(name), hyps, items)
    refs = RefSet.of(items)
    w = refs.weights.copy()
    w[refs.ptr[5] : refs.ptr[6]] = -0.5
    rows = profile.rows(w)
    assert (rows[5, profile.den_cols] == 0).all() and (rows[5, profile.num_cols] <= 0).all()
    assert (rows[4, profile.den_cols] > 0).any()
    summed = profile.summed(w[None, :], np.eye(8)[5][None, :])
    np.testing.assert_array_equal(summed[0, profile.den_cols], 0)


def test_the_public_names_are_the_functions_not_their_modules():
    import scoring.metrics.weight_profiles
    import scoring.metrics.weight_profiles_build

    assert callable(scoring.metrics.weight_profile)
    assert scoring.metrics.weight_profile.__module__ == "scoring.metrics.weight_profiles_build"
    assert scoring.metrics.WeightProfile is wp_module.WeightProfile
