"""The array index of NIST and ΔNIST equals the former dict-based computation bit for bit."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st

from scoring.metrics import build_index, load_index, save_index, stats_slice
from scoring.metrics.api import prepared_for
from scoring.metrics.base import MetricInputError, RefItem, WeightedRef
from scoring.metrics.nist import (
    NIST,
    TOKENIZERS,
    DeltaNIST,
    NISTIndex,
    encode_nist,
    make_tokenizer,
)
from tests.examples import examples

from . import helpers
from .helpers import given_tokenizer_cases, tokens_per_line
from .nist_reference import reference_prepare, reference_stats

# "0" exercises mteval's quirk; case, punctuation and digits the tokenizers' rules.
WORDS = [*helpers.WORDS, "The", "0.5", "Dog,", "x-1", "über", "中文", "3.", "&amp;"]


def sentence(rng: random.Random, shortest: int = 0) -> str:
    text = helpers.sentence(rng, shortest, longest=14, words=WORDS)
    return text + rng.choice(["", "", " ", "\t"])  # trailing whitespace: NIST keeps it


def weighted_corpus(seed: int, n: int = 30) -> tuple[list[str], list[RefItem]]:
    """Items of 1–6 references weighted in [-1, 1] (one positive), repeats, an empty line."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        refs = [WeightedRef(sentence(rng), rng.uniform(-1, 1)) for _ in range(rng.randint(0, 5))]
        refs.insert(rng.randint(0, len(refs)), WeightedRef(sentence(rng, 1), rng.uniform(0.01, 1)))
        if i % 7 == 3:
            refs.append(refs[0])  # the same reference twice in an item
        items.append(RefItem(f"i{i}", tuple(refs)))
    hyps = [sentence(rng) for _ in range(n)]
    hyps[1] = ""
    hyps[2] = items[2].refs[0].text  # a perfect match
    return hyps, items


def old_and_new(metric: NIST, hyps: list[str], items: list[RefItem]) -> tuple[np.ndarray, ...]:
    old = reference_stats(
        hyps,
        reference_prepare(
            items,
            metric.order,
            metric.tokenize,
            metric.lowercase,
            metric.mteval_compat,
            isinstance(metric, DeltaNIST),
        ),
    )
    return old, metric.stats(hyps, metric.prepare(items))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("order", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("compat", [False, True])
@pytest.mark.parametrize("cls", [NIST, DeltaNIST])
def test_rows_equal_the_dict_based_computation_bit_for_bit(seed, order, compat, cls):
    hyps, items = weighted_corpus(seed)
    metric = cls(max_order=order, mteval_compat=compat)
    old, new = old_and_new(metric, hyps, items)
    np.testing.assert_array_equal(new, old)
    # Hence the same scores; stated with the tolerance the task allows.
    old_score = metric.scores_from_stats(old.sum(axis=0))
    assert abs(float(metric.scores_from_stats(new.sum(axis=0))) - float(old_score)) <= 1e-9


@pytest.mark.parametrize("tokenize", TOKENIZERS)
@pytest.mark.parametrize("lowercase", [False, True])
def test_every_tokenizer_and_case_equals_the_dict_based_computation(tokenize, lowercase):
    hyps, items = weighted_corpus(11, n=20)
    for cls in (NIST, DeltaNIST):
        metric = cls(tokenize=tokenize, lowercase=lowercase, mteval_compat=True)
        old, new = old_and_new(metric, hyps, items)
        np.testing.assert_array_equal(new, old)


@pytest.mark.parametrize("compat", [False, True])
def test_information_weights_equal_the_dict_based_ones(compat):
    _, items = weighted_corpus(5)
    old = reference_prepare(items, 5, compat=compat)["info"]
    prepared = NIST(mteval_compat=compat).prepare(items)
    assert dict(prepared.info) == old  # float equality: the same bits


def test_reference_counts_serve_both_metrics_and_both_compat_settings():
    hyps, items = weighted_corpus(8)
    counts = DeltaNIST().reference_counts(items)
    for metric in (NIST(), DeltaNIST(), NIST(mteval_compat=True), DeltaNIST(mteval_compat=True)):
        old, _ = old_and_new(metric, hyps, items)
        np.testing.assert_array_equal(metric.stats(hyps, metric.index_from_counts(counts)), old)


@pytest.mark.parametrize("cls", [NIST, DeltaNIST])
def test_slices_of_a_memory_mapped_index_equal_the_dict_based_rows(tmp_path, cls):
    hyps, items = weighted_corpus(9, n=41)
    metric = cls(mteval_compat=True)
    old, _ = old_and_new(metric, hyps, items)
    save_index(tmp_path / "refs.idx", build_index(metric, items))
    prepared = prepared_for(metric, load_index(tmp_path / "refs.idx"))
    assert isinstance(prepared, NISTIndex)
    assert isinstance(prepared.entry_info[0], np.memmap)  # mapped, not prepared again
    for size in (1, 6, 41):
        parts = [
            stats_slice(metric, hyps[a : a + size], prepared, a, min(a + size, 41), 41)
            for a in range(0, 41, size)
        ]
        np.testing.assert_array_equal(np.concatenate(parts), old)


def test_an_index_serves_lower_orders_and_delta_checks_weights():
    hyps, items = weighted_corpus(4)
    nist5 = NIST().prepare(items)
    nist3 = NIST(max_order=3)
    assert nist3.accepts_prepared(nist5)
    np.testing.assert_array_equal(nist3.stats(hyps, nist5), nist3.stats(hyps, nist3.prepare(items)))
    assert not NIST(mteval_compat=False).accepts_prepared(nist5)
    assert not NIST(lowercase=True).accepts_prepared(nist5)
    assert DeltaNIST().accepts_prepared(nist5)
    negative = [RefItem("n", (WeightedRef("a b", -0.5),))]
    assert not DeltaNIST().accepts_prepared(NIST().prepare(negative))
    with pytest.raises(MetricInputError, match="'n' needs one reference"):
        DeltaNIST().prepare(negative)
    with pytest.raises(MetricInputError, match="other options"):
        NIST(mteval_compat=False).prepared_slice(nist5, 0, 1)


def test_an_empty_test_set_and_references_without_tokens():
    metric = DeltaNIST()
    assert metric.stats([], metric.prepare([])).shape == (0, 12)
    items = [RefItem("e", (WeightedRef("", 1.0), WeightedRef("   ", 0.5)))]
    old, new = old_and_new(metric, ["a"], items)
    np.testing.assert_array_equal(new, old)


SPECIAL = ["&amp;", "&quot;", "\n", "\t", "-\n", "ü", "中", "<skipped>", " "]
LINE = st.lists(st.sampled_from([*"aB Z9.,-'\"&<>;:!?$%()[]/@#", *SPECIAL]), max_size=20).map(
    "".join
)


@settings(max_examples=examples(60), deadline=None)
@given_tokenizer_cases(LINE, 6, TOKENIZERS)
def test_encoded_tokens_equal_the_tokenizer_line_by_line(lines, name, lowercase):
    segs, vocab = encode_nist(lines, name, lowercase)
    tokenize = make_tokenizer(name, lowercase)
    assert tokens_per_line(segs, vocab) == [tokenize(line) for line in lines]
