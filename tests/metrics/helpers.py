"""Builders shared by the metric tests."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from scoring.metrics import RefItem, WeightedRef

WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "a",
    "mat",
    "0",
    "dog",
    "Barked",
    "loudly",
    ".",
    "!",
    "gangster",
    "quick",
    "brown",
    "fox",
]


def sentence(rng: random.Random, shortest: int = 0, longest: int = 9, words=WORDS) -> str:
    return " ".join(rng.choice(words) for _ in range(rng.randint(shortest, longest)))


def random_corpus(seed: int, n: int = 23) -> tuple[list[str], list[RefItem]]:
    """``n`` items of 2–5 references (the last weighted 1, the others in [-1, 1]) over a small
    vocabulary, and one hypothesis each (item 3's empty)."""
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


def reweighted(items, weights) -> list[RefItem]:
    """``items`` with their references' weights replaced by ``weights`` (flat, in order)."""
    out, k = [], 0
    for item in items:
        refs = tuple(WeightedRef(r.text, float(weights[k + j])) for j, r in enumerate(item.refs))
        out.append(RefItem(item.id, refs))
        k += len(refs)
    return out


def items_from_streams(streams, weights=None) -> list[RefItem]:
    """sacrebleu reference streams (stream k = k-th reference of every item) → RefItems."""
    n = len(streams[0])
    out = []
    for i in range(n):
        refs = []
        for k, stream in enumerate(streams):
            if stream[i] is None:
                continue
            w = 1.0 if weights is None else float(weights[k][i])
            refs.append(WeightedRef(stream[i], w))
        out.append(RefItem(str(i), tuple(refs)))
    return out


def tokens_per_line(segs, vocab) -> list[list[str]]:
    """Encoded lines (`Segments` of token ids and their vocabulary) back as lists of tokens."""
    names = {i: t for t, i in vocab.items()}
    return [
        [names[int(i)] for i in segs.ids[s : s + n]]
        for s, n in zip(segs.starts, segs.lens, strict=True)
    ]


def given_tokenizer_cases(line, max_lines: int, names):
    """Hypothesis's ``given`` for a property of tokenization: ``lines`` (1 to ``max_lines``
    drawn from the strategy ``line``), a tokenizer ``name`` among ``names``, ``lowercase``."""
    return given(
        lines=st.lists(line, min_size=1, max_size=max_lines),
        name=st.sampled_from(names),
        lowercase=st.booleans(),
    )
