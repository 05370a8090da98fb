"""Command line: ``python -m scoring.metrics {score,index,list} …`` (a stable contract).

``score --metric M (--refs REFS.jsonl | --index INDEX) --hyps HYPS [HYPS …] [options]
[--ci] [--seed N] [--paired-bs | --paired-ar] [--json]`` prints one sacrebleu-style line per
system (or JSON); ``index --refs REFS.jsonl --out INDEX [--metric M] [options]`` builds a
reference index. Metric options come from the registry, so every metric gets them for free.
Errors exit with status 1 and a message naming the file, line or item.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import api
from .base import Metric, MetricInputError, OptionSpec
from .build import write_index
from .index import load_index
from .io import read_hyps, read_refs_jsonl
from .registry import entries
from .significance import (
    DEFAULT_SEED,
    bootstrap_ci,
    paired_approximate_randomization,
    paired_bootstrap,
)


def _option_specs() -> dict[str, list[OptionSpec]]:
    specs: dict[str, list[OptionSpec]] = {}
    for entry in entries().values():
        for spec in entry.options:
            specs.setdefault(spec.name, []).append(spec)
    return specs


def _add_metric_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("metric options (defaults depend on the metric)")
    for name, specs in _option_specs().items():
        spec = specs[0]
        kwargs: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS, "help": spec.help}
        if spec.type is bool:
            kwargs["action"] = argparse.BooleanOptionalAction
        else:
            kwargs["type"] = spec.type
            choices = {c for s in specs if s.choices for c in s.choices}
            if choices and all(s.choices for s in specs):
                kwargs["choices"] = sorted(choices)
        group.add_argument(spec.flag, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m scoring.metrics``."""
    parser = argparse.ArgumentParser(prog="python -m scoring.metrics", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    names = list(entries())
    score = sub.add_parser("score", help="score one or more systems")
    score.add_argument("--metric", choices=names, help="default: dbleu, or the index's metric")
    refs = score.add_mutually_exclusive_group(required=True)
    refs.add_argument("--refs", help="REFS.jsonl ('-' for standard input)")
    refs.add_argument("--index", help="a reference index built by the index command")
    score.add_argument("--hyps", action="extend", nargs="+", required=True, help="HYPS file(s)")
    score.add_argument("--ci", action="store_true", help="95%% bootstrap confidence interval")
    score.add_argument("--n-bootstrap", type=int, default=1000, help="bootstrap resamples")
    score.add_argument("--n-ar", type=int, default=10000, help="approximate randomization trials")
    score.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed")
    test = score.add_mutually_exclusive_group()
    test.add_argument("--paired-bs", action="store_true", help="paired bootstrap vs first system")
    test.add_argument("--paired-ar", action="store_true", help="paired approximate randomization")
    score.add_argument("--json", action="store_true", help="JSON output")
    _add_metric_options(score)
    index = sub.add_parser("index", help="build a reference index")
    index.add_argument("--metric", choices=names, default="dbleu")
    index.add_argument("--refs", required=True, help="REFS.jsonl ('-' for standard input)")
    index.add_argument("--out", required=True, help="index file to write")
    _add_metric_options(index)
    sub.add_parser("list", help="list the metrics and their options")
    return parser


def _given_options(args: argparse.Namespace, metric: str) -> dict[str, Any]:
    specs = {spec.name for spec in entries()[metric].options}
    given = {name: getattr(args, name) for name in _option_specs() if hasattr(args, name)}
    foreign = sorted(n for n in given if n not in specs)
    if foreign:
        flags = ", ".join("--" + n.replace("_", "-") for n in foreign)
        raise MetricInputError(f"option {flags} does not apply to metric {metric}")
    return given


def _text_line(label: str, res: dict[str, Any]) -> str:
    line = f"{res['signature']} = {res['score']:.2f}"
    if "precisions" in res:
        prec = "/".join(f"{p:.1f}" for p in res["precisions"])
        line += f" {prec} (BP = {res['bp']:.3f} ratio = {res.get('ratio', 0):.3f} "
        line += f"hyp_len = {res['sys_len']} ref_len = {res['ref_len']})"
    if "ci_low" in res:
        line += f" [95% CI {res['ci_low']:.2f}, {res['ci_high']:.2f}]"
    if res.get("p_value") is not None:
        line += f" (p = {res['p_value']:.4f})"
    return f"{label}: {line}" if label else line


def _score(args: argparse.Namespace) -> int:
    index = load_index(args.index) if args.index else None
    name = args.metric or (index.metric if index else "dbleu")
    given = _given_options(args, name)
    if index is not None:
        metric: Metric = api.metric_for_index(name, index, given)
        item_ids, nrefs = index.item_ids, api.index_nrefs(index)
        prepared = api.prepared_for(metric, index)
    else:
        metric = api.as_metric(name, **given)
        items = read_refs_jsonl(args.refs)
        item_ids, nrefs = [it.id for it in items], api.nrefs_label(items)
        prepared = metric.prepare(items) if len(args.hyps) > 1 else None
    results, stats_list = [], []
    for path in args.hyps:
        hyps = read_hyps(path, item_ids)
        stats = (
            metric.stats(hyps, prepared)
            if prepared is not None
            else (metric.stats_direct(hyps, items))
        )
        stats_list.append(stats)
        res = api.result_with_nrefs(metric, stats.sum(axis=0), nrefs)
        out = {"hyps": path, "metric": metric.name, "score": res.score, **res.extras}
        out["signature"] = res.signature
        if args.ci:
            ci = bootstrap_ci(metric, stats, args.n_bootstrap, args.seed)
            out.update(ci_low=ci.low, ci_high=ci.high)
        results.append(out)
    _significance(args, metric, stats_list, results)
    _emit(args, results)
    return 0


def _significance(
    args: argparse.Namespace,
    metric: Metric,
    stats: Sequence[np.ndarray],
    results: list[dict[str, Any]],
) -> None:
    if not (args.paired_bs or args.paired_ar):
        return
    if len(stats) < 2:
        raise MetricInputError("a paired test needs at least two --hyps files")
    results[0]["p_value"] = None
    for k in range(1, len(stats)):
        if args.paired_bs:
            test = paired_bootstrap(metric, stats[0], stats[k], args.n_bootstrap, args.seed)
        else:
            test = paired_approximate_randomization(
                metric, stats[0], stats[k], args.n_ar, args.seed
            )
        results[k]["p_value"] = test.p_value


def _emit(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    if args.json:
        payload: Any = results[0] if len(results) == 1 else results
        print(json.dumps(payload, ensure_ascii=False, indent=1))
        return
    for res in results:
        print(_text_line(res["hyps"] if len(results) > 1 else "", res))


def _index(args: argparse.Namespace) -> int:
    given = _given_options(args, args.metric)
    items = read_refs_jsonl(args.refs)
    metric = api.as_metric(args.metric, **given)
    write_index(args.out, metric, items)  # a range of items at a time: bounded memory
    print(f"indexed {len(items)} items for {args.metric} {dict(metric.opts)} into {args.out}")
    return 0


def _list() -> int:
    for entry in entries().values():
        weights = "uses weights" if entry.uses_weights else "ignores weights"
        print(f"{entry.name}: {entry.display_name} — {entry.description} ({weights})")
        for spec in entry.options:
            print(f"    {spec.flag} (default {spec.default!r}): {spec.help}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 bad input, 2 bad usage)."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        if args.command == "score":
            return _score(args)
        if args.command == "index":
            return _index(args)
        return _list()
    except MetricInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
