"""The dict-based NIST/ΔNIST of before the array index, kept as the yardstick of its tests.

This is the library's former code path (every reference n-gram of the test set in a Counter,
information weights in a dict), trimmed to what the statistics need. ``reference_stats`` gives
the per-item rows ``[num_1..N, den_1..N, hyp_len, ref_len]`` exactly as it computed them, so the
array index can be compared with it bit for bit. ``bench/nist_index.py`` times it too.
"""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from scoring.metrics.base import RefItem
from scoring.metrics.nist import make_tokenizer

Ngram = tuple[str, ...]


def ngrams(tokens: Sequence[str], order: int) -> list[Ngram]:
    out: list[Ngram] = []
    for n in range(1, min(order, len(tokens)) + 1):
        out.extend(zip(*(tokens[k:] for k in range(n)), strict=False))
    return out


def reference_prepare(
    items: Sequence[RefItem],
    order: int = 5,
    tokenize: str = "13a",
    lowercase: bool = False,
    compat: bool = False,
    delta: bool = False,
) -> dict[str, Any]:
    """Info weights, per-item reference n-grams, mean reference lengths and max weights."""
    tok = make_tokenizer(tokenize, lowercase)
    totals: Counter[Ngram] = Counter()
    tot_words = 0
    per_item: list[dict[Ngram, Any]] = []
    ref_len = np.zeros(len(items))
    max_weight = np.zeros(len(items))
    for k, item in enumerate(items):
        merged: dict[Ngram, Any] = {}
        for ref in item.refs:
            toks = tok(ref.text)
            grams = ngrams(toks, order)
            totals.update(grams)
            tot_words += len(toks)
            ref_len[k] += len(toks)
            for g, c in Counter(grams).items():
                if delta:
                    merged.setdefault(g, []).append((ref.weight, c))
                elif c > merged.get(g, 0):
                    merged[g] = c
        ref_len[k] /= len(item.refs)
        max_weight[k] = max(r.weight for r in item.refs)
        per_item.append(merged)
    grams = list(totals)
    counts = np.fromiter(totals.values(), dtype=np.float64, count=len(grams))
    prefix_count = {**totals, (): tot_words}
    if compat:
        prefix_count[("0",)] = tot_words
    prefixes = map(operator.itemgetter(slice(None, -1)), grams)
    prefix = np.fromiter(
        map(prefix_count.__getitem__, prefixes), dtype=np.float64, count=len(grams)
    )
    values = -np.log(counts / prefix) / math.log(2)
    info = dict(zip(grams, values.tolist(), strict=True))
    return {
        "info": info,
        "ref_ngrams": per_item,
        "ref_len": ref_len,
        "max_weight": max_weight,
        "order": order,
        "tok": tok,
        "delta": delta,
    }


def reference_stats(hyps: Sequence[str], prepared: dict[str, Any]) -> np.ndarray:
    """Rows ``[num_1..N, den_1..N, hyp_len, ref_len]`` as the dict-based code computed them."""
    order, tok, info = prepared["order"], prepared["tok"], prepared["info"]
    out = np.zeros((len(hyps), 2 * order + 2))
    for k, hyp in enumerate(hyps):
        toks = tok(hyp)
        size = len(toks)
        row = out[k]
        for g, c in Counter(ngrams(toks, order)).items():
            found = prepared["ref_ngrams"][k].get(g)
            if found is not None:
                if prepared["delta"]:
                    matched = max(w * min(c, rc) for w, rc in found)
                else:
                    matched = float(min(c, found))
                row[len(g) - 1] += info[g] * matched
        for n in range(1, order + 1):
            row[order + n - 1] = max(size - n + 1, 0) * prepared["max_weight"][k]
        row[2 * order] = size
        row[2 * order + 1] = prepared["ref_len"][k]
    return out
