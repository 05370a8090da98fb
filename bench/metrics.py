"""Speed of the metric library against sacrebleu, measured in the same process (ratios).

Synthetic corpus: 10,000 items × 16 weighted references, ~15 tokens each (noisy variants of a
per-item base sentence over a Zipfian vocabulary, so that BLEU is realistic, ~40).
Run: ``python bench/metrics.py [--items N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import sacrebleu
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.metrics import (
    RefItem,
    WeightedRef,
    bootstrap_ci,
    build_index,
    compute_stats,
    get_metric,
)
from scoring.metrics.tokenizers import clear_token_cache


def make_corpus(n_items: int, n_refs: int = 16, seed: int = 0):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(30000)]
    punct = [",", ".", "!", "?", "'s", "(x)", "-", "n't"]

    def variant(base):
        out = []
        for w in base:
            r = rng.random()
            if r < 0.35:
                out.append(words[int(rng.zipf(1.3)) % len(words)])
            elif r >= 0.42:
                out.append(w)
        if rng.random() < 0.5:
            out.append(punct[int(rng.integers(len(punct)))])
        return " ".join(out)

    hyps, items = [], []
    for i in range(n_items):
        base = [words[int(rng.zipf(1.3)) % len(words)] for _ in range(int(rng.integers(8, 22)))]
        weights = np.round(rng.uniform(-1, 1, n_refs), 2)
        weights[0] = 1.0
        items.append(RefItem(str(i), tuple(WeightedRef(variant(base), float(w)) for w in weights)))
        hyps.append(variant(base))
    return hyps, items


def timed(fn, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def clear_caches():
    """Every run from cold: sacrebleu's per-line caches and ours of tokenized line lists."""
    Tokenizer13a.__call__.cache_clear()
    TokenizerRegexp.__call__.cache_clear()
    clear_token_cache()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=10000)
    n = ap.parse_args().items
    hyps, items = make_corpus(n)
    streams = [[it.refs[k].text for it in items] for k in range(16)]
    rows = []

    def sb(tok):
        clear_caches()
        return sacrebleu.corpus_bleu(hyps, streams, tokenize=tok, force=True).score

    t_sb_none, _ = timed(lambda: sb("none"))
    t_sb_13a, s13a = timed(lambda: sb("13a"))
    tok = Tokenizer13a()
    strings = hyps + [s for st in streams for s in st]
    clear_caches()
    t_tok, _ = timed(lambda: [tok(s) for s in strings])
    clear_caches()

    def ours(tok_name, name="dbleu"):
        clear_caches()
        m = get_metric(name, tokenize=tok_name)
        return m.result(compute_stats(m, hyps, items=items).sum(0)).score

    t_d_none, _ = timed(lambda: ours("none"), 2)
    t_d_13a, _ = timed(lambda: ours("13a"), 2)
    t_b_13a, b13a = timed(lambda: ours("13a", "bleu"))
    assert abs(b13a - s13a) < 1e-9, (b13a, s13a)

    cached = sacrebleu.BLEU(references=streams, force=True)
    t_cached, _ = timed(lambda: (clear_caches(), cached.corpus_score(hyps, None))[1], 2)
    metric = get_metric("dbleu")
    t_build, index = timed(lambda: build_index(metric, items))
    t_index, stats = timed(lambda: (clear_caches(), compute_stats(metric, hyps, index=index))[1], 3)
    t_boot, _ = timed(lambda: bootstrap_ci(metric, stats, 1000), 2)

    rows = [
        ("sacrebleu corpus_bleu, tokenize=none", t_sb_none, None, None),
        ("sacrebleu corpus_bleu, tokenize=13a", t_sb_13a, None, None),
        ("sacrebleu 13a tokenization only", t_tok, None, None),
        ("sacrebleu BLEU(references=…).corpus_score", t_cached, None, None),
        ("ΔBLEU end to end, none", t_d_none, t_sb_none / t_d_none, "≥ 5× vs corpus_bleu none"),
        ("ΔBLEU end to end, 13a", t_d_13a, t_sb_13a / t_d_13a, "≥ 2.5× vs corpus_bleu 13a"),
        ("ΔBLEU end to end 13a / 13a tokenization", t_d_13a, t_d_13a / t_tok, "≤ 1.5 (ratio)"),
        ("BLEU end to end, 13a", t_b_13a, t_sb_13a / t_b_13a, "(info)"),
        ("index build (once per release)", t_build, None, None),
        ("ΔBLEU against prebuilt index, 13a", t_index, t_sb_13a / t_index, "≥ 20× vs corpus_bleu"),
        ("  … vs sacrebleu cached references", t_index, t_cached / t_index, "≥ 2× vs cached"),
        ("bootstrap CI, 1,000 resamples", t_boot, t_sb_13a / t_boot, "> 1× (cheaper than 1 call)"),
    ]
    print(f"corpus: {n} items × 16 refs")
    print(f"{'measure':48s} {'seconds':>8s} {'ratio':>8s}  target")
    for name, t, ratio, target in rows:
        r = f"{ratio:8.2f}" if ratio is not None else " " * 8
        print(f"{name:48s} {t:8.3f} {r}  {target or ''}")


if __name__ == "__main__":
    main()
