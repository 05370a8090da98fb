"""Builders shared by the metric tests."""

from __future__ import annotations

from scoring.metrics import RefItem, WeightedRef


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
