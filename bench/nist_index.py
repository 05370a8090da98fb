"""Build time and peak memory of NIST's and ΔNIST's prepared references, old against new.

Synthetic, seeded data: N items × 16 references of 10–20 tokens (~15) drawn from a Zipf-like
vocabulary of 20,000 words; each reference rewrites about a third of its item's base sentence
(references of one item share most n-grams, as real ones do), weights in [-1, 1] with one
positive per item; hypotheses are rewritten base sentences too.

Every measurement runs in a fresh interpreter, so the RSS high-water mark (``getrusage``) is
that measurement's alone; ``base`` is the RSS after making the data, before the build.

* ``old``: the former dict-based preparation (``tests/metrics/nist_reference.py``) and its
  per-item statistics;
* ``new``: ``metric.prepare`` (the array index) and ``metric.stats``, then the index saved;
* ``mapped``: a worker's path: the saved index loaded (memory-mapped, checksum verified) and
  every item scored in slices of 5,000 (``stats_slice``);
* ``build``: the index file alone, built whole (``build_index`` then ``save_index``), no stats;
* ``ranged``: the index file built ``--range-size`` items at a time (``write_index``); the
  index file is compared byte for byte with the one of ``build`` when both ran.

``--metrics`` also takes ``dbleu`` (the BLEU family's index); ``--modes`` picks the paths.

Columns: seconds to build (``mapped``: to load) and to compute every item's statistics; RSS
before the build, high-water mark, tracemalloc peak, index file size, and the anonymous and
file-backed RSS at the end.

Usage: ``python bench/nist_index.py [--items 2000 20000 100000] [--old-max 2000]
[--tracemalloc] [--metrics nist dnist dbleu] [--modes build ranged] [--range-size 10000]``
(tracemalloc slows the dict-based code several times: a separate run).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring.metrics import build_index, load_index, save_index, stats_slice  # noqa: E402
from scoring.metrics.api import prepared_for  # noqa: E402
from scoring.metrics.base import Metric, RefItem, WeightedRef  # noqa: E402
from scoring.metrics.nist import NIST, DeltaNIST  # noqa: E402
from scoring.metrics.registry import get_metric  # noqa: E402

N_REFS = 16
SLICE = 5_000


def synthetic(n_items: int, seed: int = 0) -> tuple[list[str], list[RefItem]]:
    """Hypotheses and 16 weighted references per item (see the module docstring)."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{k}" for k in range(20_000)])
    probs = 1.0 / np.arange(1, 20_001)
    probs /= probs.sum()

    def variants(base: np.ndarray, count: int) -> list[str]:
        out = np.repeat(base[None, :], count, axis=0)
        change = rng.random(out.shape) < 0.33
        out[change] = rng.choice(len(words), size=int(change.sum()), p=probs)
        return [" ".join(words[row]) for row in out]

    hyps, items = [], []
    for k in range(n_items):
        base = rng.choice(len(words), size=int(rng.integers(10, 21)), p=probs)
        texts = variants(base, N_REFS + 1)
        weights = rng.uniform(-1, 1, size=N_REFS)
        weights[0] = 1.0
        items.append(RefItem(str(k), tuple(map(WeightedRef, texts[1:], weights.tolist()))))
        hyps.append(texts[0])
    return hyps, items


def rss_mb() -> float:
    """Current resident set size (MB)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_parts_mb() -> tuple[float, float]:
    """Current anonymous and file-backed RSS (MB): a mapped index's pages are file-backed,
    shared by every process that maps the file."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return tuple(int(fields[k].split()[0]) / 1024 for k in ("RssAnon", "RssFile"))  # type: ignore[return-value]


def peak_rss_mb() -> float:
    """This process's RSS high-water mark (MB; Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_metric(name: str) -> Metric:
    """The metric measured: NIST, ΔNIST or ΔBLEU (the BLEU family's index)."""
    return {"nist": NIST, "dnist": DeltaNIST}[name]() if name != "dbleu" else get_metric("dbleu")


def child(
    mode: str, metric_name: str, n_items: int, path: str, trace: bool, range_size: int = 0
) -> dict:
    """One measurement in this (fresh) process."""
    metric = make_metric(metric_name)
    hyps, items = synthetic(n_items)
    out: dict = {"base_rss_mb": rss_mb()}
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    if mode == "old":
        sys.path.insert(0, str(ROOT))
        from tests.metrics.nist_reference import reference_prepare, reference_stats

        prepared = reference_prepare(items, delta=metric_name == "dnist")
        built = time.perf_counter()
        reference_stats(hyps, prepared)
    elif mode == "build":
        save_index(path, build_index(metric, items))
        built = time.perf_counter()
    elif mode == "ranged":
        from scoring.metrics import write_index

        write_index(path, metric, items, range_items=range_size)
        built = time.perf_counter()
    elif mode == "new":
        index = build_index(metric, items)
        built = time.perf_counter()
        metric.stats(hyps, index.prepared)
    else:  # mapped: the index file the "new" run saved
        del items  # a worker holds no reference objects: the mapped file has them
        index = load_index(path)
        prepared = prepared_for(metric, index)
        built = time.perf_counter()
        for a in range(0, n_items, SLICE):
            b = min(a + SLICE, n_items)
            stats_slice(metric, hyps[a:b], prepared, a, b, n_items)
    end = time.perf_counter()  # build and ranged only build: their stats time is nil
    if trace:
        out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    if mode == "new" and path:
        save_index(path, index)
    if mode in ("new", "build", "ranged") and path:
        out["file_mb"] = os.path.getsize(path) / 2**20
    anon, mapped = rss_parts_mb()
    out.update(
        build_s=built - start,
        stats_s=end - built,
        peak_rss_mb=peak_rss_mb(),
        anon_mb=anon,
        file_mb_resident=mapped,
    )
    return out


def run_child(
    mode: str, metric: str, n_items: int, path: str, trace: bool, range_size: int = 0
) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--child",
        mode,
        "--metric",
        metric,
        "--items",
        str(n_items),
        "--path",
        path,
        "--range-size",
        str(range_size),
    ]
    cmd += ["--tracemalloc"] if trace else []
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--old-max", type=int, default=2000, help="largest N for the old code")
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--metrics", nargs="+", default=["nist", "dnist"])
    parser.add_argument("--modes", nargs="+", default=None, help="default: old, new, mapped")
    parser.add_argument("--range-size", type=int, default=10_000, help="items per range")
    parser.add_argument("--child", choices=["old", "new", "mapped", "build", "ranged"])
    parser.add_argument("--metric", default="nist")
    parser.add_argument("--path", default="")
    args = parser.parse_args()
    if args.child:
        result = child(
            args.child, args.metric, args.items[0], args.path, args.tracemalloc, args.range_size
        )
        print(json.dumps(result))
        return
    print(
        f"{'N':>7} {'metric':6} {'path':6} {'build s':>8} {'stats s':>8} {'base MB':>8} "
        f"{'peak RSS':>9} {'traced':>8} {'file MB':>8} {'anon/file RSS at end':>21}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.items:
            for metric in args.metrics:
                path = str(Path(tmp) / f"{metric}-{n}.idx")
                modes = args.modes or (["old"] if n <= args.old_max else []) + ["new", "mapped"]
                for mode in modes:
                    target = path + (".ranged" if mode == "ranged" else "")
                    r = run_child(mode, metric, n, target, args.tracemalloc, args.range_size)
                    traced = (
                        f"{r['tracemalloc_peak_mb']:8.0f}"
                        if "tracemalloc_peak_mb" in r
                        else "       -"
                    )
                    print(
                        f"{n:7d} {metric:6} {mode:6} {r['build_s']:8.2f} {r['stats_s']:8.2f} "
                        f"{r['base_rss_mb']:8.0f} {r['peak_rss_mb']:9.0f} {traced} "
                        f"{r.get('file_mb', 0):8.0f} {r['anon_mb']:10.0f}/"
                        f"{r['file_mb_resident']:<10.0f}",
                        flush=True,
                    )
                    if mode == "ranged" and "build" in modes:
                        same = Path(path).read_bytes() == Path(target).read_bytes()
                        print(f"        ranged file identical to the whole build's: {same}")


if __name__ == "__main__":
    main()
