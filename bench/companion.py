"""Time the companion metrics (NIST, ΔNIST, 4-GRR, AMBER) per 10,000 items.

Synthetic data: 10,000 items, hypotheses and references of 10–20 tokens (~15) drawn from a
Zipf-like vocabulary of 5,000 words, 1–4 references per item (weights in [-1, 1] with one
positive). Each metric is timed for ``prepare`` (reference index), ``stats`` (one system) and a
1,000-sample bootstrap through ``scores_from_stats``; sacrebleu's ``corpus_bleu`` on the same
data (references padded to 4 streams by repetition) runs in the same process as the yardstick.

Usage: ``python bench/companion.py [--items 10000] [--seed 0]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.metrics.amber import Amber
from scoring.metrics.base import Metric, RefItem, WeightedRef
from scoring.metrics.grr import GRR
from scoring.metrics.nist import NIST, DeltaNIST, clear_token_cache


def synthetic(n_items: int, seed: int) -> tuple[list[str], list[RefItem]]:
    """Hypotheses and weighted reference items of ~15 Zipf-distributed tokens."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{k}" for k in range(5000)])
    probs = 1.0 / np.arange(1, 5001)
    probs /= probs.sum()

    def sentence() -> str:
        return " ".join(rng.choice(vocab, size=int(rng.integers(10, 21)), p=probs))

    hyps = [sentence() for _ in range(n_items)]
    items = []
    for k in range(n_items):
        n_refs = int(rng.integers(1, 5))
        weights = [1.0] + [float(w) for w in rng.uniform(-1, 1, size=n_refs - 1)]
        items.append(RefItem(str(k), tuple(WeightedRef(sentence(), w) for w in weights)))
    return hyps, items


def time_metric(metric: Metric, hyps: list[str], items: list[RefItem]) -> tuple[float, ...]:
    """Seconds for prepare, stats and a 1,000-sample bootstrap of scores_from_stats, from cold
    (no strings tokenized by an earlier metric)."""
    clear_token_cache()
    start = time.perf_counter()
    prepared = metric.prepare(items)
    mid = time.perf_counter()
    rows = metric.stats(hyps, prepared)
    end = time.perf_counter()
    rng = np.random.default_rng(1)
    picks = rng.integers(0, len(hyps), size=(1000, len(hyps)))
    counts = np.stack([np.bincount(p, minlength=len(hyps)) for p in picks]).astype(float)
    boot_start = time.perf_counter()
    metric.scores_from_stats(counts @ rows)
    boot = time.perf_counter() - boot_start
    return mid - start, end - mid, boot


def time_sacrebleu(hyps: list[str], items: list[RefItem]) -> float:
    """Seconds for sacrebleu.corpus_bleu (4 reference streams) on the same data."""
    import sacrebleu

    streams = [[it.refs[j % len(it.refs)].text for it in items] for j in range(4)]
    start = time.perf_counter()
    sacrebleu.corpus_bleu(hyps, streams)
    return time.perf_counter() - start


def main() -> None:
    """Print one row per metric: seconds per 10,000 items and the ratio to sacrebleu BLEU."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    hyps, items = synthetic(args.items, args.seed)
    scale = 10_000 / args.items
    bleu = time_sacrebleu(hyps, items) * scale
    print(f"{args.items} items, {sum(len(it.refs) for it in items)} references")
    header = f"{'metric':<12}{'prepare s':>11}{'stats s':>10}{'total s':>10}{'boot1k s':>10}"
    print(header + f"{'× sacrebleu':>13}")
    print(f"{'sacrebleu':<12}{'':>11}{'':>10}{bleu:>10.2f}{'':>10}{1.0:>13.2f}")
    for metric in (NIST(), DeltaNIST(), GRR(), Amber()):
        prep, stats, boot = (t * scale for t in time_metric(metric, hyps, items))
        total = prep + stats
        print(
            f"{metric.name:<12}{prep:>11.2f}{stats:>10.2f}{total:>10.2f}{boot:>10.3f}"
            f"{total / bleu:>13.2f}"
        )


if __name__ == "__main__":
    main()
