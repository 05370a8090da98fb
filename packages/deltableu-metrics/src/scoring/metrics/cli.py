"""Command line: ``dbleu`` (or ``python -m scoring.metrics``) ``{score,index,list} …``.

``score [REFS …] (-r REFS … | --index INDEX) -i HYPS [HYPS …] [-m METRIC …] [--ci]
[--paired-bs] [--paired-ar] [--format text|json|latex]`` scores one or more systems with one or
more metrics in one pass over the references; REFS is a REFS.jsonl file ('-' for standard
input), a release archive downloaded from the web app (``--split`` picks its split), or
sacrebleu-style plain text files (one per reference). ``dbleu REFS -i HYPS`` is short for
``dbleu score REFS -i HYPS``. ``index --refs REFS --out INDEX [-m METRIC] [options]`` builds a
reference index; ``list`` prints the metrics and their options. Metric options come from the
registry, so every metric gets them for free. Exit status: 0 ok, 1 bad input (the message
names the file, line or item), 2 bad usage (one line, from :mod:`.cli_checks`).

Imports are lazy: ``--version`` loads nothing but this module.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from .version import __version__

if TYPE_CHECKING:
    import numpy as np

    from .base import Metric
    from .index import IndexFile
    from .refset import RefItems

COMMANDS = ("score", "index", "list")
PROG = "dbleu"
DESCRIPTION = (
    "ΔBLEU, BLEU, sBLEU, BLEU-SBP, NIST, ΔNIST, 4-GRR and AMBER with significance tests. "
    "`dbleu REFS -i HYPS …` is short for `dbleu score REFS -i HYPS …`; see `dbleu score -h`. "
    "Exit status: 0 ok, 1 bad input, 2 bad usage."
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line (no usage block) and exit status 2."""
        self.exit(2, f"{self.prog}: error: {message}\n")


def _add_metric_options(parser: argparse.ArgumentParser) -> None:
    from .cli_checks import option_specs

    group = parser.add_argument_group("metric options (defaults depend on the metric)")
    for name, specs in option_specs().items():
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
    """The argument parser of ``dbleu``."""
    from .registry import entries
    from .significance import DEFAULT_SEED

    parser = _Parser(prog=PROG, description=DESCRIPTION)
    parser.add_argument("-V", "--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    names = list(entries())
    score = sub.add_parser("score", help="score one or more systems")
    score.add_argument("refs_pos", nargs="*", metavar="REFS", help="references (see -r)")
    score.add_argument(
        "-r",
        "--refs",
        action="extend",
        nargs="+",
        default=[],
        help="REFS.jsonl ('-': standard input), a release .zip, or plain text files",
    )
    score.add_argument("--index", help="a reference index built by the index command")
    score.add_argument("--split", help="the split of a release archive (default: its only one)")
    score.add_argument(
        "-i",
        "--hyps",
        "--input",
        dest="hyps",
        action="extend",
        nargs="+",
        default=[],
        help="HYPS file(s) ('-': standard input)",
    )
    score.add_argument(
        "-m",
        "--metric",
        "--metrics",
        dest="metrics",
        action="extend",
        nargs="+",
        choices=names,
        help="default: dbleu, or the index's metric",
    )
    score.add_argument("--ci", action="store_true", help="95%% bootstrap confidence interval")
    score.add_argument(
        "--n-bootstrap", type=int, default=1000, help="bootstrap resamples (at most 1,000,000)"
    )
    score.add_argument(
        "--n-ar", type=int, default=10000, help="randomization trials (at most 1,000,000)"
    )
    score.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (≥ 0)")
    score.add_argument("--paired-bs", action="store_true", help="paired bootstrap vs first system")
    score.add_argument("--paired-ar", action="store_true", help="paired approximate randomization")
    score.add_argument("-f", "--format", choices=("text", "json", "latex"), default="text")
    score.add_argument("--json", dest="format", action="store_const", const="json", help="-f json")
    _add_metric_options(score)
    index = sub.add_parser("index", help="build a reference index")
    index.add_argument("-m", "--metric", choices=names, default="dbleu")
    index.add_argument("-r", "--refs", required=True, help="REFS.jsonl ('-': standard input)")
    index.add_argument("--split", help="the split of a release archive")
    index.add_argument("-o", "--out", required=True, help="index file to write")
    _add_metric_options(index)
    sub.add_parser("list", help="list the metrics and their options")
    return parser


def _load_refs(args: argparse.Namespace) -> tuple[IndexFile | None, RefItems | None]:
    from .sources import read_references

    if args.index:
        return args.index_file, None  # loaded by the checks (its metric is the default)
    return None, read_references(args.refs, args.split)


def _score(args: argparse.Namespace) -> int:
    from . import api
    from .io import read_hyps

    index, items = _load_refs(args)
    item_ids = index.item_ids if index is not None else items.ids  # type: ignore[union-attr]
    nrefs = api.index_nrefs(index) if index is not None else items.nrefs()  # type: ignore[union-attr]
    systems = [(path, read_hyps(path, item_ids)) for path in args.hyps]
    results: list[dict[str, Any]] = []
    for metric in args.metric_objects:
        hyps_list = [hyps for _, hyps in systems]
        if index is not None:
            prepared = api.prepared_for(metric, index)
            stats = [metric.stats(hyps, prepared) for hyps in hyps_list]
        else:
            stats = _stats_direct(metric, hyps_list, items)  # type: ignore[arg-type]
        for (path, _), rows in zip(systems, stats, strict=True):
            results.append(_result(args, metric, path, rows, nrefs))
        _significance(args, metric, stats, results[-len(stats) :])
    _emit(args, results)
    return 0


# Items whose references are prepared at once when several systems are scored by a metric
# whose rows are item-local: one pass over the references, memory bounded by the part.
PART_ITEMS = 2000


def _stats_direct(metric: Metric, hyps_list: list[list[str]], items: RefItems) -> list[np.ndarray]:
    """Every system's statistics against ``items``, the references prepared once."""
    import numpy as np

    from .refset import RefItems
    from .tokenizers import clear_token_cache

    if len(hyps_list) == 1:
        return [metric.stats_direct(hyps_list[0], items)]
    if not metric.item_local:
        prepared = metric.prepare(items)
        return [metric.stats(hyps, prepared) for hyps in hyps_list]
    parts: list[list[np.ndarray]] = [[] for _ in hyps_list]
    for a in range(0, len(items), PART_ITEMS):
        b = min(a + PART_ITEMS, len(items))
        prepared = metric.prepare(RefItems(items.refset.part(a, b)))
        for k, hyps in enumerate(hyps_list):
            parts[k].append(metric.stats(hyps[a:b], prepared))
        clear_token_cache()  # this process's parts are never seen again
    return [np.concatenate(p) for p in parts]


def _result(
    args: argparse.Namespace, metric: Metric, path: str, stats: np.ndarray, nrefs: int | str
) -> dict[str, Any]:
    from . import api
    from .significance import bootstrap_ci

    res = api.result_with_nrefs(metric, stats.sum(axis=0), nrefs)
    out = {"hyps": path, "metric": metric.name, "score": res.score, **res.extras}
    out["signature"], out["display_name"] = res.signature, metric.display_name
    if args.ci:
        ci = bootstrap_ci(metric, stats, args.n_bootstrap, args.seed)
        out.update(ci_low=ci.low, ci_high=ci.high)
    return out


def _significance(
    args: argparse.Namespace,
    metric: Metric,
    stats: Sequence[np.ndarray],
    results: list[dict[str, Any]],
) -> None:
    from .significance import paired_approximate_randomization, paired_bootstrap

    if not (args.paired_bs or args.paired_ar):
        return
    for key, asked in (("p_value_bs", args.paired_bs), ("p_value_ar", args.paired_ar)):
        if not asked:
            continue
        results[0][key] = None
        for k in range(1, len(stats)):
            if key == "p_value_bs":
                test = paired_bootstrap(metric, stats[0], stats[k], args.n_bootstrap, args.seed)
            else:
                test = paired_approximate_randomization(
                    metric, stats[0], stats[k], args.n_ar, args.seed
                )
            results[k][key] = test.rank_p_value  # 1 for equal scores, as on the leaderboard
    for res in results:  # the documented key: the bootstrap's p-value, else AR's
        res["p_value"] = res.get("p_value_bs", res.get("p_value_ar"))


def _emit(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    from . import report

    settings = f"seed {args.seed}"
    if args.paired_bs or args.ci:
        settings += f", {args.n_bootstrap} bootstrap resamples"
    if args.paired_ar:
        settings += f", {args.n_ar} randomization trials"
    if args.format == "json":
        print(report.as_json(results))
    elif args.format == "latex":
        print(report.latex_table(results, settings))
    elif (args.paired_bs or args.paired_ar) and len(args.hyps) > 1:
        print(report.text_table(results, settings))
    else:
        for res in results:
            print(report.score_line(res["hyps"] if len(args.hyps) > 1 else "", res))


def _index(args: argparse.Namespace) -> int:
    from .build import write_index
    from .sources import read_references

    items = read_references([args.refs], args.split)
    metric = args.metric_objects[0]
    write_index(args.out, metric, items)  # a range of items at a time: bounded memory
    print(f"indexed {len(items)} items for {args.metric} {dict(metric.opts)} into {args.out}")
    return 0


def _list() -> int:
    from .registry import entries

    for entry in entries().values():
        weights = "uses weights" if entry.uses_weights else "ignores weights"
        print(f"{entry.name}: {entry.display_name} — {entry.description} ({weights})")
        for spec in entry.options:
            print(f"    {spec.flag} (default {spec.default!r}): {spec.help}")
    return 0


def _normalized(argv: Sequence[str]) -> list[str]:
    """sacrebleu's shape ``dbleu REFS -i HYPS`` is ``dbleu score REFS -i HYPS``."""
    argv = list(argv)
    if argv and argv[0] not in (*COMMANDS, "-h", "--help", "-V", "--version"):
        return ["score", *argv]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 bad input, 2 bad usage)."""
    argv = _normalized(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-V"], ["--version"]):
        print(f"{PROG} {__version__}")  # before any import of numpy or the metrics
        return 0
    import logging

    from .base import MetricInputError
    from .cli_checks import UsageError, validate

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or argparse's one-line usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        validate(args)
        if args.command == "score":
            return _score(args)
        if args.command == "index":
            return _index(args)
        return _list()
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except MetricInputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file that vanished or cannot be written after the checks
        print(f"{PROG}: error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 1
