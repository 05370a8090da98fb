"""The reference index: same numbers as the direct path, saved and loaded, reused across metrics."""

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
)  # fmt: skip

ITEMS = [
    RefItem("a", (WeightedRef("the the the dog .", 0.3), WeightedRef("the cat sat .", 1.0))),
    RefItem("b", (WeightedRef("it was great !", 1.0), WeightedRef("it was awful", -1.0))),
]
HYPS = ["the the the cat sat .", "it was awful !"]


@pytest.mark.parametrize("name, opts", [
    ("dbleu", {}), ("dbleu", {"definition": "author-2019"}), ("bleu", {}), ("sbleu", {}),
    ("bleu-sbp", {"ref_length": "shortest"}),
])  # fmt: skip
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
