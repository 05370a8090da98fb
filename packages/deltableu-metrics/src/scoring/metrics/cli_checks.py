"""Every command-line value checked in one place, before any file is read: a bad value is one
line on standard error and exit status 2 (:class:`UsageError`); bad file contents are input
errors (status 1) found later by the readers."""

from __future__ import annotations

import argparse
import os
import zipfile
from pathlib import Path
from typing import Any

from .base import Metric, MetricInputError, OptionSpec
from .registry import entries, get_entry, get_metric

MAX_SEED = 2**63 - 1
# Bootstrap resamples and randomization trials: a thousand times sacrebleu's defaults (1,000
# and 10,000) is plenty for any p-value; past it numpy fails (an array too large to allocate,
# a traceback) or the run takes hours, since every resample draws each item once.
MAX_RESAMPLES = 1_000_000


class UsageError(Exception):
    """A bad command-line value: printed on one line, exit status 2."""


def option_specs() -> dict[str, list[OptionSpec]]:
    """Every metric option by name, with the specs of the metrics that have it."""
    specs: dict[str, list[OptionSpec]] = {}
    for entry in entries().values():
        for spec in entry.options:
            specs.setdefault(spec.name, []).append(spec)
    return specs


def validate(args: argparse.Namespace) -> None:
    """Check ``args`` of any command; sets ``args.metric_objects`` (the metrics to run) and,
    for ``score --index``, ``args.index_file``. Raises :class:`UsageError`."""
    if args.command == "score":
        _check_score(args)
    elif args.command == "index":
        _check_readable(args.refs, "--refs")
        if args.split is not None and not _is_zip(args.refs):
            raise UsageError("--split applies to a release archive (.zip) given as --refs")
        _check_out(args.out)
        args.metric_objects = [_metric(args.metric, _given(args), [args.metric])]


def _check_score(args: argparse.Namespace) -> None:
    args.refs = [*args.refs_pos, *args.refs]
    if args.refs and args.index:
        raise UsageError("give the references (REFS or --refs) or --index, not both")
    if not args.refs and not args.index:
        raise UsageError("give the references (REFS or --refs) or --index")
    if not args.hyps:
        raise UsageError("give the system output(s) with -i/--hyps")
    for path in args.refs:
        _check_readable(path, "references")
    for path in args.hyps:
        _check_readable(path, "--hyps")
    if args.index:
        _check_readable(args.index, "--index")
    if args.split is not None and not (len(args.refs) == 1 and _is_zip(args.refs[0])):
        raise UsageError("--split applies to a release archive (.zip) given as REFS")
    stdin = [p for p in (*args.refs, *args.hyps) if p == "-"]
    if len(stdin) > 1:
        raise UsageError("only one of the references and the outputs can be standard input")
    _check_several_refs(args.refs)
    _check_counts(args)
    if (args.paired_bs or args.paired_ar) and len(args.hyps) < 2:
        raise UsageError("a paired test needs at least two systems (-i BASELINE SYSTEM …)")
    _build_metrics(args)


def _check_several_refs(paths: list[str]) -> None:
    from .sources import several_files_problem

    problem = several_files_problem(paths)  # the readers' own rule, as a usage error here
    if problem is not None:
        raise UsageError(problem)


def _check_counts(args: argparse.Namespace) -> None:
    for flag, value in (("--n-bootstrap", args.n_bootstrap), ("--n-ar", args.n_ar)):
        if value < 1:
            raise UsageError(f"{flag} must be at least 1 (got {value})")
        if value > MAX_RESAMPLES:
            raise UsageError(f"{flag} must be at most {MAX_RESAMPLES} (got {value})")
    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed must be between 0 and {MAX_SEED} (got {args.seed})")


def _build_metrics(args: argparse.Namespace) -> None:
    given = _given(args)
    if args.index:
        from .api import metric_for_index
        from .index import load_index

        args.index_file = load_index(args.index)  # a bad index file is bad input (status 1)
        names = args.metrics or [args.index_file.metric]
        _check_applies(given, names)
        args.metric_objects = [
            _wrapped(lambda n=n: metric_for_index(n, args.index_file, _own(n, given)))
            for n in dict.fromkeys(names)
        ]
        return
    names = args.metrics or ["dbleu"]
    args.metric_objects = [_metric(n, given, names) for n in dict.fromkeys(names)]


def _given(args: argparse.Namespace) -> dict[str, Any]:
    return {name: getattr(args, name) for name in option_specs() if hasattr(args, name)}


def _own(name: str, given: dict[str, Any]) -> dict[str, Any]:
    """The given options that metric ``name`` has."""
    specs = {spec.name for spec in get_entry(name).options}
    return {k: v for k, v in given.items() if k in specs}


def _check_applies(given: dict[str, Any], names: list[str]) -> None:
    """Every given option belongs to at least one of the chosen metrics."""
    known = {spec.name for n in names for spec in get_entry(n).options}
    foreign = sorted(n for n in given if n not in known)
    if foreign:
        flags = ", ".join("--" + n.replace("_", "-") for n in foreign)
        raise UsageError(f"option {flags} does not apply to metric {', '.join(names)}")


def _metric(name: str, given: dict[str, Any], names: list[str]) -> Metric:
    _check_applies(given, names)
    return _wrapped(lambda: get_metric(name, **_own(name, given)))


def _wrapped(make: Any) -> Metric:
    try:
        metric: Metric = make()
    except MetricInputError as exc:  # an option's value: bad usage
        raise UsageError(str(exc).replace("option ", "--", 1).replace("_", "-")) from None
    return metric


def _check_readable(path: str, what: str) -> None:
    if path == "-":
        return
    p = Path(path)
    if not p.exists():
        raise UsageError(f"{what}: {path}: no such file")
    if p.is_dir():
        raise UsageError(f"{what}: {path}: is a directory")
    if not os.access(p, os.R_OK):
        raise UsageError(f"{what}: {path}: not readable")


def _check_out(path: str) -> None:
    from .arrayfile import target_problem

    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    problem = target_problem(p)  # the writer's own rule, checked before the index is built
    if problem is not None:
        raise UsageError(f"--out: {path}: {problem}")
    if not parent.is_dir():
        raise UsageError(f"--out: {parent}: no such directory")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"--out: {parent}: not writable")


def _is_zip(path: str) -> bool:
    return path != "-" and zipfile.is_zipfile(path)
