"""A file of per-response scores of metrics computed elsewhere (an LLM judge, COMET, BERTScore):
one row per system × item, the item's id, the system, then one column per metric (no database).

Read by the judgments' table reader (`tables.py`: TSV, CSV or JSONL, bounded lines, the same
column synonyms), in the `metrics` layout of `columns.py`. The metric columns are those the
request names, else every column left over that holds numbers (a column of words, such as the
response itself, is ignored). Unlike a judgments bundle nothing is skipped: a score that is not
a finite number, an empty cell, a row given twice refuse the whole file, each problem naming
its line and column, because a metric with silently missing scores would be meta-evaluated on
other responses than the ones its author scored.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from annotate.judgments.columns import CRITERION, IGNORE, MappedColumn, mapping_apply, normalised
from annotate.judgments.tables import Table, table_read
from core.lines import LineProblem

LAYOUT = "metrics"
MAX_METRICS = 50  # columns a file may score with; real files carry a handful
MAX_NAME = 100  # characters of a metric's name (the model's field)
# A plain decimal number: float() alone would also take "nan", "inf", "1_000" and " 1e5 ".
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
MAX_PROBLEMS = 200  # listed in a refusal; a file wrong on every line says so in the first few


@dataclass
class MetricRow:
    line: int
    system: str
    item: str
    scores: list[float]  # in the order of `MetricFile.metrics`


@dataclass
class MetricFile:
    name: str
    metrics: list[str] = field(default_factory=list)
    rows: list[MetricRow] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)

    def error(self, line: int, column: str, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(LineProblem(line, message, column, self.name))

    @property
    def errors(self) -> list[LineProblem]:
        return [p for p in self.problems if p.level == "error"]


def score_of(cell: object) -> float | None:
    """A cell's finite number (a JSON number, or text that is a plain decimal), else None."""
    if isinstance(cell, bool):
        return None
    if isinstance(cell, int | float):
        value = float(cell)
    elif isinstance(cell, str) and NUMBER.fullmatch(cell.strip()):
        value = float(cell.strip())
    else:
        return None
    return value if math.isfinite(value) else None


def _text(cell: object) -> str:
    if isinstance(cell, bool) or cell is None:
        return ""
    return str(cell).strip() if isinstance(cell, str | int) else ""


def _choose_metrics(table: Table, named: list[str], out: MetricFile) -> list[int]:
    """The metric columns' indices: those `named` (header names), else every criterion column."""
    roles, header = table.guess.roles, table.guess.header or []
    if not named:
        return [k for k, role in enumerate(roles) if role == CRITERION]
    chosen = []
    for name in named:
        found = [k for k, h in enumerate(header) if normalised(h) == normalised(name)]
        if len(found) != 1:
            why = "no column is named" if not found else "several columns are named"
            out.error(1, name, f"{why} {name!r} (columns: {', '.join(header[:20])})")
            continue
        if roles[found[0]] not in (CRITERION, IGNORE):
            out.error(1, name, f"the column {name!r} is the {roles[found[0]]}, not a metric")
            continue
        chosen.append(found[0])
    return chosen


def _check_columns(table: Table, chosen: list[int], out: MetricFile) -> None:
    guess = table.guess
    for role in guess.missing:
        if role != CRITERION:
            out.error(1, role, f"no column is the {role} (name it, e.g. item=ID)")
    for role in guess.doubled:
        out.error(1, role, f"several columns claim the {role}")
    if not chosen:
        out.error(1, "", "no metric column: name one, or give a column of numbers")
    if len(chosen) > MAX_METRICS:
        out.error(1, "", f"{len(chosen)} metric columns: at most {MAX_METRICS}")
    names = [table.column_name(k).strip() for k in chosen]
    for k, name in zip(chosen, names, strict=True):
        if not name or guess.header is None:
            out.error(1, f"column {k + 1}", "a metric column needs a name: give a header")
        elif len(name) > MAX_NAME:
            out.error(1, name[:40] + "…", f"a metric's name is at most {MAX_NAME} characters")
        elif names.count(name) > 1:
            out.error(1, name, f"several columns are named {name!r}")
    out.metrics = names


def _read_rows(table: Table, chosen: list[int], out: MetricFile) -> None:
    item, system = table.guess.first("item"), table.guess.first("system")
    if item is None or system is None:
        return
    seen: dict[tuple[str, str], int] = {}
    for line, cells in table.rows:
        cell = dict(enumerate(cells))
        keys = {"item": _text(cell.get(item)), "system": _text(cell.get(system))}
        for role, text in keys.items():
            if not text:
                out.error(line, table.column_name(item if role == "item" else system), f"no {role}")
        scores: list[float] = []
        for k in chosen:
            value = score_of(cell.get(k))
            if value is None:
                shown = _text(cell.get(k))[:40] or "an empty cell"
                out.error(line, table.column_name(k), f"{shown!r} is not a finite number")
            scores.append(value if value is not None else math.nan)
        pair = (keys["system"], keys["item"])
        if pair in seen:
            out.error(line, "", f"system {pair[0]!r} and item {pair[1]!r} are on line {seen[pair]}")
        seen.setdefault(pair, line)
        out.rows.append(MetricRow(line, keys["system"], keys["item"], scores))


def metric_file_parse(
    name: str,
    data: bytes,
    *,
    metrics: list[str] | None = None,
    columns: list[MappedColumn] | None = None,
) -> MetricFile:
    """The file's metric names and rows, with every problem by line and column (`errors`
    empty when it can be imported). `metrics`: the metric columns' names (default: every
    column of numbers not otherwise roled); `columns`: roles mapped as for judgments."""
    table = table_read(LAYOUT, name, data)
    out = MetricFile(name, problems=list(table.parsed.problems))
    if columns:
        mapping_apply({LAYOUT: table.guess}, [c for c in columns if c.file in ("", LAYOUT)])
    unreadable = len(out.errors)  # lines the reader could not split: the rest are checked
    chosen = _choose_metrics(table, [m.strip() for m in metrics or [] if m.strip()], out)
    _check_columns(table, chosen, out)
    if len(out.errors) == unreadable:
        _read_rows(table, chosen, out)
    if not out.errors and not out.rows:
        out.error(0, "", "the file holds no rows of scores (a header alone, or nothing)")
    return out
