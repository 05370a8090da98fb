"""Speed of the metric library against sacrebleu: in one process, and as a user meets it.

Synthetic corpus: 10,000 items × 16 weighted references, ~15 tokens each (noisy variants of a
per-item base sentence over a Zipfian vocabulary, so that BLEU is realistic, ~40).

1. In one process: the library's functions against sacrebleu's (ratios).
2. Whole processes, each measured in the same run: the ``dbleu`` command line (as
   ``python -m scoring.metrics``) reading REFS.jsonl against the ``sacrebleu`` command reading
   16 plain text reference files, with ``--tokenize none`` and ``13a``; ``dbleu`` with a
   prebuilt reference index; the start of ``dbleu --version``. Wall time and peak memory (the
   child's maximum resident set) of each.

Run: ``python bench/metrics.py [--items N] [--repeat R] [--whole-only]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sacrebleu
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# The metric library's source, for a checkout where it is not installed.
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "packages/deltableu-metrics/src"))

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


def in_process(n: int, hyps: list[str], items: list[RefItem]) -> None:
    """Part 1: the library's functions against sacrebleu's, in this process."""
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


# Runs one command in a child of its own and reports the command's wall time and peak memory
# (RUSAGE_CHILDREN of a process with a single child is that child's maximum resident set).
_MEASURE = (
    "import json, resource, subprocess, sys, time; t = time.perf_counter(); "
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE); "
    "s = time.perf_counter() - t; "
    "print(json.dumps({'seconds': s, 'rss_mb': resource.getrusage(resource.RUSAGE_CHILDREN)"
    ".ru_maxrss / 1024, 'code': r.returncode, 'out': r.stdout.decode()[-300:], "
    "'err': r.stderr.decode()[-300:]}))"
)


def measured(argv: list[str], cwd: str, repeat: int) -> tuple[float, float, str]:
    """(best wall seconds, peak MB of that run, its output) of ``argv`` run ``repeat`` times."""
    best: dict | None = None
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path[:2])}
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", _MEASURE, *argv],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        run = json.loads(out.stdout)
        if run["code"] != 0:
            raise SystemExit(f"{argv[:3]} failed: {run['err']}")
        if best is None or run["seconds"] < best["seconds"]:
            best = run
    assert best is not None
    return best["seconds"], best["rss_mb"], best["out"]


def write_corpus(where: str, hyps: list[str], items: list[RefItem]) -> None:
    """REFS.jsonl (with weights) for dbleu and 16 plain text reference files for sacrebleu."""
    with open(f"{where}/refs.jsonl", "w", encoding="utf-8") as fh:
        for it in items:
            refs = [{"text": r.text, "weight": r.weight} for r in it.refs]
            fh.write(json.dumps({"id": it.id, "refs": refs}, ensure_ascii=False) + "\n")
    for k in range(len(items[0].refs)):
        with open(f"{where}/ref{k}.txt", "w", encoding="utf-8") as fh:
            fh.write("".join(it.refs[k].text + "\n" for it in items))
    with open(f"{where}/hyps.txt", "w", encoding="utf-8") as fh:
        fh.write("".join(h + "\n" for h in hyps))


def whole_process(n: int, hyps: list[str], items: list[RefItem], repeat: int) -> None:
    """Part 2: the command lines as a user runs them, measured in this one run."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as d:
        write_corpus(d, hyps, items)
        refs = [f"ref{k}.txt" for k in range(len(items[0].refs))]
        sb = [py, "-m", "sacrebleu", *refs, "-i", "hyps.txt", "-b", "--force"]
        ours = [py, "-m", "scoring.metrics", "refs.jsonl", "-i", "hyps.txt"]
        t = {}
        for tok in ("none", "13a"):
            t[f"sb_{tok}"] = measured([*sb, "--tokenize", tok], d, repeat)
            t[f"ours_{tok}"] = measured([*ours, "--tokenize", tok], d, repeat)
        # BLEU's equality with sacrebleu is checked in part 1 (and by the tests), to 1e-9.
        index = [py, "-m", "scoring.metrics", "index", "-r", "refs.jsonl", "-o", "refs.idx"]
        t["index_build"] = measured(index, d, 1)
        t["ours_index"] = measured(
            [py, "-m", "scoring.metrics", "--index", "refs.idx", "-i", "hyps.txt"], d, repeat
        )
        t["start"] = measured([py, "-m", "scoring.metrics", "--version"], d, max(repeat, 5))
        t["py"] = measured([py, "-c", "pass"], d, max(repeat, 5))
    load = os.getloadavg()
    loads = " ".join(f"{x:.2f}" for x in load)
    print(f"\nwhole process, {n} items × {len(items[0].refs)} refs (load average {loads}, ", end="")
    print(f"{os.cpu_count()} cores)")
    print(f"{'command':52s} {'seconds':>8s} {'peak MB':>8s} {'ratio':>7s}  target")
    rows = [
        ("sacrebleu CLI, --tokenize none", "sb_none", None, ""),
        ("sacrebleu CLI, --tokenize 13a", "sb_13a", None, ""),
        ("dbleu REFS.jsonl, ΔBLEU, --tokenize none", "ours_none", "sb_none", "≥ 5×"),
        ("dbleu REFS.jsonl, ΔBLEU, --tokenize 13a", "ours_13a", "sb_13a", "≥ 3×"),
        ("dbleu index (once per reference set)", "index_build", None, ""),
        ("dbleu --index, ΔBLEU, 13a", "ours_index", "sb_13a", "≥ 20×"),
        ("dbleu --version (start)", "start", None, "< 0.1 s"),
        ("python -c pass (interpreter alone)", "py", None, ""),
    ]
    for label, key, base, target in rows:
        secs, mb, _ = t[key]
        ratio = f"{t[base][0] / secs:6.1f}×" if base else " " * 7
        print(f"{label:52s} {secs:8.3f} {mb:8.0f} {ratio}  {target}")
    for tok in ("none", "13a"):
        share = t[f"ours_{tok}"][1] / t[f"sb_{tok}"][1]
        print(f"peak memory dbleu / sacrebleu, {tok}: {share:.2f} (target ≤ 0.5)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=1, help="whole-process runs (best kept)")
    ap.add_argument("--whole-only", action="store_true", help="skip the in-process part")
    args = ap.parse_args()
    hyps, items = make_corpus(args.items)
    if not args.whole_only:
        in_process(args.items, hyps, items)
    whole_process(args.items, hyps, items, args.repeat)


if __name__ == "__main__":
    main()
