"""Speed and memory of corpus mining: index build and seed queries, 100K and 1M triples.

A synthetic corpus of chat triples (Zipfian vocabulary of 200,000 words, s = 1.15, with NLTK's
English stopwords and 20 common chat words (lol, like, know...) at
the head, 4–16 words a turn, one context turn) is written gzip-compressed, then each
size runs in its own process so its peak memory (ru_maxrss) is its own:
  - index: stream the file, tokenize, build both bm25s fields, save (seconds, peak RSS);
  - queries: open the saved index (memory-mapped) and mine seeds (message + response) drawn
    from the same distribution, with our posting-list search and, as the reference in the
    same process, bm25s's own dense scoring (`get_scores_from_ids` on both fields, summed, and
    the same top-k), checking both find the same top-15 scores (rows
with equal scores are many, so row ids may differ).

Run: ``python bench/mining.py [--sizes 100000 1000000] [--queries 2000]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bm25s.stopwords import STOPWORDS_EN_PLUS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The head of the distribution is function words (what stopword lists hold) with the commonest
# chat words among them, as in real chat; the tail is content words w0, w1, ...
CHAT_WORDS = [
    "lol",
    "like",
    "know",
    "good",
    "love",
    "get",
    "go",
    "think",
    "yeah",
    "got",
    "one",
    "see",
    "want",
    "time",
    "really",
    "people",
    "day",
    "oh",
    "haha",
    "thanks",
]
_STOP = [w for w in STOPWORDS_EN_PLUS if "'" not in w]
FUNCTION_WORDS = _STOP[:30] + CHAT_WORDS + _STOP[30:]
VOCAB = 200_000
K = 15


def _sentence(rng: np.random.Generator, words: np.ndarray) -> str:
    return " ".join(words[rng.zipf(1.15, size=rng.integers(4, 17)) % len(words)])


def make_words() -> np.ndarray:
    return np.array(FUNCTION_WORDS + [f"w{i}" for i in range(VOCAB - len(FUNCTION_WORDS))])


def write_corpus(path: Path, n: int, seed: int = 0) -> None:
    rng, words = np.random.default_rng(seed), make_words()
    with gzip.open(path, "wt", compresslevel=1, encoding="utf-8") as out:
        for i in range(n):
            row = {
                "conversation": f"c{i // 3}",
                "context": [_sentence(rng, words)],
                "message": _sentence(rng, words),
                "response": _sentence(rng, words),
            }
            out.write(json.dumps(row) + "\n")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_index(corpus: Path, directory: Path) -> dict:
    from annotate.mining.corpus import read_triples
    from annotate.mining.index import build_index
    from core.lines import LineProblems

    started = time.perf_counter()
    with corpus.open("rb") as raw:
        meta = build_index(read_triples(raw, "jsonl", LineProblems()), directory)
    return {
        "index_s": time.perf_counter() - started,
        "index_peak_mb": peak_mb(),
        "vocabulary": meta["vocabulary"],
        "index_disk_mb": sum(f.stat().st_size for f in directory.rglob("*") if f.is_file()) / 2**20,
    }


def _dense_top(index, message: str, response: str) -> list[float]:
    from annotate.mining.text import tokens

    total = np.zeros(len(index), dtype=np.float32)
    for name, text in (("message", message), ("response", response)):
        ids = [index.vocab[w] for w in tokens(text) if w in index.vocab]
        if ids:
            total += index.fields[name].get_scores_from_ids(ids)
    best = np.argpartition(-total, K - 1)[:K]
    return sorted((float(total[d]) for d in best if total[d] > 0), reverse=True)


def run_queries(directory: Path, n_queries: int) -> dict:
    from annotate.mining.index import CorpusIndex

    rng, words = np.random.default_rng(1), make_words()
    seeds = [(_sentence(rng, words), _sentence(rng, words)) for _ in range(n_queries)]
    opened = time.perf_counter()
    index = CorpusIndex(directory)
    open_s = time.perf_counter() - opened
    started = time.perf_counter()
    ours = [[h.score for h in index.search(message=m, response=r, k=K)] for m, r in seeds]
    ours_qps = n_queries / (time.perf_counter() - started)
    n_ref = max(50, n_queries // 10)  # the dense reference is slow on 1M rows
    started = time.perf_counter()
    dense = [_dense_top(index, m, r) for m, r in seeds[:n_ref]]
    dense_qps = n_ref / (time.perf_counter() - started)
    # Many triples tie (same words, same length), so compare the top 15 scores, not row ids.
    agree = (
        sum(
            len(a) == len(b) and np.allclose(a, b, rtol=1e-4)
            for a, b in zip(ours, dense, strict=False)
        )
        / n_ref
    )
    return {
        "open_s": open_s,
        "qps": ours_qps,
        "dense_qps": dense_qps,
        "top15_agree": agree,
        "query_peak_mb": peak_mb(),
    }


def one_size(n: int, n_queries: int, work: Path) -> dict:
    corpus, directory = work / f"corpus-{n}.jsonl.gz", work / f"index-{n}"
    started = time.perf_counter()
    write_corpus(corpus, n)
    generate_s = time.perf_counter() - started
    stage = [sys.executable, __file__, "--stage"]
    index = json.loads(subprocess.check_output([*stage, "index", str(corpus), str(directory)]))
    queries = json.loads(subprocess.check_output([*stage, "query", str(directory), str(n_queries)]))
    return {
        "triples": n,
        "generate_s": generate_s,
        "corpus_mb": corpus.stat().st_size / 2**20,
        **index,
        **queries,
    }


def print_table(results: list[dict]) -> None:
    print(
        f"{'triples':>9} {'index s':>8} {'peak MB':>8} {'disk MB':>8} {'vocab':>8} {'open s':>7}"
        f" {'q/s':>7} {'dense q/s':>9} {'speed-up':>8} {'same top15':>10}"
    )
    for r in results:
        print(
            f"{r['triples']:>9,} {r['index_s']:>8.1f} {r['index_peak_mb']:>8.0f} "
            f"{r['index_disk_mb']:>8.0f} {r['vocabulary']:>8,} {r['open_s']:>7.2f} "
            f"{r['qps']:>7.0f} {r['dense_qps']:>9.0f} {r['qps'] / r['dense_qps']:>7.1f}x "
            f"{r['top15_agree']:>9.0%}"
        )
    if len(results) > 1:
        a, b = results[0], results[-1]
        size = b["triples"] / a["triples"]
        print(
            f"\n{size:.0f}x the triples: index time x{b['index_s'] / a['index_s']:.1f}, "
            f"peak memory x{b['index_peak_mb'] / a['index_peak_mb']:.1f}, "
            f"time per query x{a['qps'] / b['qps']:.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--stage", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "deltableu.settings")
    os.environ.setdefault("DEBUG", "True")  # settings only; nothing is served or stored
    if args.stage:
        import django

        django.setup()  # the corpus reader shares the dataset importer's line decoder
        kind, *rest = args.stage
        if kind == "index":
            result = run_index(Path(rest[0]), Path(rest[1]))
        else:
            result = run_queries(Path(rest[0]), int(rest[1]))
        print(json.dumps(result))
        return
    with tempfile.TemporaryDirectory(prefix="bench-mining-") as work:
        results = [one_size(n, args.queries, Path(work)) for n in args.sizes]
    print_table(results)
    print("\n" + json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
