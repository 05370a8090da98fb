"""The reference index: same numbers as the direct path, saved and loaded, reused across metrics."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.metrics import build_index, compute_stats, get_metric, load_index, save_index
from scoring.metrics.base import MetricInputError, RefItem, WeightedRef

ITEMS = [
    RefItem("a", (WeightedRef("the the the dog .", 0.3), WeightedRef("the cat sat .", 1.0))),
    RefItem("b", (WeightedRef("it was great !", 1.0), WeightedRef("it was awful", -1.0))),
]
HYPS = ["the the the cat sat .", "it was awful !"]


@pytest.mark.parametrize(
    "name, opts",
    [
        ("dbleu", {}),
        ("dbleu", {"definition": "author-2019"}),
        ("bleu", {}),
        ("sbleu", {}),
        ("bleu-sbp", {"ref_length": "shortest"}),
    ],
)
def test_index_path_equals_direct_path(tmp_path, name, opts):
    metric = get_metric(name, **opts)
    path = tmp_path / "refs.idx"
    save_index(path, build_index(metric, ITEMS))
    index = load_index(path)
    assert index.item_ids == ["a", "b"]
    np.testing.assert_allclose(
        compute_stats(metric, HYPS, index=index),
        compute_stats(metric, HYPS, items=ITEMS),
        atol=1e-12,
    )


def test_index_built_for_dbleu_serves_bleu_and_lower_orders():
    index = build_index("dbleu", ITEMS, max_order=4)
    bleu2 = get_metric("bleu", max_order=2)
    assert bleu2.accepts_prepared(index.prepared)
    assert not get_metric("bleu", lowercase=True).accepts_prepared(index.prepared)
    # incompatible options: prepared again from the stored references, same numbers
    lc = get_metric("bleu", lowercase=True)
    np.testing.assert_allclose(
        compute_stats(lc, HYPS, index=index), compute_stats(lc, HYPS, items=ITEMS)
    )


def test_not_an_index_file(tmp_path):
    bad = tmp_path / "x.idx"
    bad.write_bytes(b"hello")
    with pytest.raises(MetricInputError, match="not an index"):
        load_index(bad)


@pytest.mark.parametrize(
    "name", ["dbleu", "bleu", "sbleu", "bleu-sbp", "nist", "dnist", "4grr", "amber"]
)
def test_every_metric_round_trips_through_the_file_exactly(tmp_path, name):
    metric = get_metric(name)
    path = tmp_path / f"{name}.idx"
    save_index(path, build_index(metric, ITEMS))
    loaded = load_index(path)
    assert (loaded.metric, loaded.item_ids) == (name, ["a", "b"])
    assert loaded.options == dict(metric.opts)
    np.testing.assert_array_equal(
        compute_stats(metric, HYPS, index=loaded), compute_stats(metric, HYPS, items=ITEMS)
    )


def test_a_pickle_in_an_index_file_is_refused_and_never_run(tmp_path):
    import pickle

    ran = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (ran.write_text, ("pwned",))

    # A file shaped like an index whose arrays hold a pickled object.
    path = tmp_path / "evil.idx"
    with path.open("wb") as fh:
        np.savez(fh, header=np.array([Payload()], dtype=object))
    with pytest.raises(MetricInputError, match="not an index"):
        load_index(path)
    path.write_bytes(pickle.dumps({"format": "deltableu-studio-index", "index": Payload()}))
    with pytest.raises(MetricInputError, match="not an index"):
        load_index(path)
    assert not ran.exists()


def test_a_loaded_index_is_a_read_only_map_of_its_file_shared_by_every_load(tmp_path):
    path = tmp_path / "refs.idx"
    save_index(path, build_index("dbleu", ITEMS))
    first, second = load_index(path), load_index(path)
    for index in (first, second):
        keys = index.prepared.orders[0].keys
        assert isinstance(keys, np.memmap) and str(keys.filename) == str(path.resolve())
        assert not keys.flags.writeable
    assert np.array_equal(first.prepared.orders[1].keys, second.prepared.orders[1].keys)
    metric = get_metric("dbleu")
    np.testing.assert_array_equal(
        compute_stats(metric, HYPS, index=first), compute_stats(metric, HYPS, items=ITEMS)
    )


@pytest.mark.parametrize("damage", ["truncate", "flip", "append"])
def test_a_damaged_index_file_is_refused(tmp_path, damage):
    path = tmp_path / "refs.idx"
    save_index(path, build_index("dbleu", ITEMS))
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "flip":
        data[-10] ^= 0xFF
    else:
        data += b"\0" * 64
    path.write_bytes(bytes(data))
    with pytest.raises(MetricInputError, match="not an index"):
        load_index(path)


def test_an_index_of_an_older_format_is_refused(tmp_path):
    from scoring.metrics.arrayfile import write_arrays

    path = tmp_path / "old.idx"
    write_arrays(path, {}, {"format": "deltableu-studio-index", "version": 2})
    with pytest.raises(MetricInputError, match="version 2 unsupported"):
        load_index(path)


@pytest.mark.parametrize("name", ["4grr", "amber"])
def test_word_aligning_metrics_store_token_ids_and_slice_them_in_place(tmp_path, name):
    from scoring.metrics.tokenized import TokenIdRefs

    path = tmp_path / "refs.idx"
    save_index(path, build_index(name, ITEMS))
    loaded = load_index(path)
    assert isinstance(loaded.prepared, TokenIdRefs) and loaded.prepared.nrefs == 2
    assert isinstance(loaded.prepared.tokens, np.memmap)  # read from the file, not tokenized
    metric = get_metric(name)
    part = metric.prepared_slice(loaded.prepared, 1, 2)
    assert (part.ids, part.nrefs) == (["b"], 2)
    assert part.token_lists(part.pairs()[1]) == metric.prepare(ITEMS[1:2]).token_lists(np.arange(2))
