"""A human-evaluation file as a table: numbered rows of cells, its header if it has one, and the
role guessed for each column (no database).

TSV is split on tabs only, so quote characters are kept as written; CSV uses the csv module
leniently (a quote inside an unquoted field is text); JSONL objects become rows whose columns
are the keys met in the file, in the order met.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field

from annotate.judgments.cells import (
    MULTI_VALUED,
    Splitting,
    TooManyValues,
    cell_split,
    separator_detect,
)
from annotate.judgments.columns import SAMPLE_ROWS, ColumnGuess, guess_columns, header_in
from core import strict_json
from core.lines import BOM, LineProblem, LineProblems, read_lines
from core.tabular import csv_records

PREVIEW_ROWS = 5
PREVIEW_COLUMNS = 100  # a row of thousands of fields is shown (and mapped on a page) in part
MAX_KEYS = 100  # of a JSONL file's lines: judge, id, system and criteria (real files: < 20)
PREVIEW_CELL_CHARS = 200  # a preview shows the start of a long cell, not a whole dialogue
PREVIEW_VALUES = 20  # of a multi-valued cell


@dataclass
class Parsed:
    problems: list[LineProblem] = field(default_factory=list)

    def error(self, file: str, line: int, message: str, kind: str = "", subject: str = "") -> None:
        self.problems.append(LineProblem(line, message, "", file, "error", kind, subject))

    def warn(self, file: str, line: int, message: str, kind: str = "", subject: str = "") -> None:
        self.problems.append(LineProblem(line, message, "", file, "warning", kind, subject))


def _lines(data: bytes, name: str, parsed: Parsed) -> list[tuple[int, str]]:
    """Every line, numbered: one holding a NUL is left empty (an error: the row is skipped), one
    that is not UTF-8 is read as Latin-1 (a warning)."""
    if data.startswith(BOM):
        parsed.warn(name, 1, "byte-order mark removed")
    found = LineProblems(file=name)
    lines = list(read_lines(io.BytesIO(data), found, keep_bad=True, latin1=True))
    parsed.problems += found.reported()
    return lines


def _format_of(text: str, name: str) -> str:
    lower = name.lower()
    if lower.endswith((".jsonl", ".json")) or text.lstrip().startswith("{"):
        return "jsonl"
    first = text.split("\n", 1)[0]
    if lower.endswith(".csv") or ("\t" not in first and "," in first):
        return "csv"
    return "tsv"


def rows_of(data: bytes, name: str, parsed: Parsed) -> list[tuple[int, list[str] | dict]]:
    """(line number, fields or JSON object) of each non-empty line."""
    lines = _lines(data, name, parsed)
    text = "\n".join(line for _, line in lines)
    fmt = _format_of(text, name)
    out: list[tuple[int, list[str] | dict]] = []
    if fmt == "csv":  # a quoted field may span lines: the csv module reads the whole text

        def unreadable(number: int, message: str) -> None:
            parsed.error(name, number, message, "lines not readable as CSV")

        for number, fields in csv_records(text, unreadable):
            if any(f.strip() for f in fields):
                out.append((number, fields))
        return out
    for number, line in lines:
        if not line.strip():
            continue
        if fmt == "jsonl":
            try:
                obj = strict_json.loads(line)
            except strict_json.StrictJSONError as exc:
                parsed.error(name, number, f"not valid JSON ({exc.describe()})", "lines not JSON")
                continue
            if not isinstance(obj, dict):
                parsed.error(name, number, "expected a JSON object", "lines not a JSON object")
                continue
            out.append((number, obj))
        else:
            out.append((number, line.split("\t")))
    return out


@dataclass
class Table:
    """One file's rows (cells in column order: strings, or JSON values) and its column roles."""

    name: str
    layout: str
    guess: ColumnGuess
    rows: list[tuple[int, list[object]]]
    parsed: Parsed
    jsonl: bool = False
    splittings: dict[int, Splitting] = field(default_factory=dict)  # by column index
    _detected: dict[tuple[int, str], Splitting] = field(default_factory=dict, repr=False)

    def settle(self, separators: dict[str, str] | None = None) -> Table:
        """Once the roles are final: check the rows against them, and choose how each
        multi-valued column is split (`separators`: role → separator name, else detected)."""
        self.guess.check_rows(self.rows)
        given = separators or {}
        self.splittings = {}
        names = self.guess.header or []
        for k, role in enumerate(self.guess.roles):
            if role not in MULTI_VALUED or self.layout != "judgments":
                continue  # a contexts or references file splits cell by cell (parsing.py)
            column = names[k] if k < len(names) else f"column {k + 1}"
            cells = (cells[k] for _, cells in self.rows if k < len(cells))
            if role in given:
                self.splittings[k] = Splitting(column, role, given[role], True)
            elif (k, role) not in self._detected:  # settled twice: at reading and mapping
                self._detected[k, role] = separator_detect(cells, column, role)
            self.splittings[k] = self.splittings.get(k) or self._detected[k, role]
        return self

    def values(self, k: int, cell: object) -> list[str]:
        """A multi-valued cell's values (TooManyValues past the limit), or the cell alone."""
        splitting = self.splittings.get(k)
        if splitting is None:
            return [cell.strip()] if isinstance(cell, str) and cell.strip() else []
        return cell_split(cell, splitting.separator)

    def column_name(self, k: int) -> str:
        names = self.guess.header or []
        return names[k] if k < len(names) and names[k] else f"column {k + 1}"

    def _split_row(self, cells: list[object]) -> list[object]:
        out: list[object] = []
        for k, cell in enumerate(cells[:PREVIEW_COLUMNS]):
            if k not in self.splittings:
                out.append(_short(cell))
                continue
            try:
                out.append([_short(v) for v in self.values(k, cell)[:PREVIEW_VALUES]])
            except TooManyValues as exc:
                out.append(f"({exc})")
        return out

    def preview(self) -> dict:
        """The header, the first rows and the guessed roles, for the user to confirm."""
        rows = [
            [_short(cell) for cell in cells[:PREVIEW_COLUMNS]]
            for _, cells in self.rows[:PREVIEW_ROWS]
        ]
        guess = self.guess
        names = guess.header or []
        width = min(max([len(guess.roles), *(len(r) for r in rows)]), PREVIEW_COLUMNS)
        columns = [
            {"number": k + 1, "name": names[k] if k < len(names) else "", "role": guess.role_at(k)}
            for k in range(width)
        ]
        return {
            "file": self.name,
            "header": guess.header[:PREVIEW_COLUMNS] if guess.header is not None else None,
            "rows": rows,
            "columns": columns,
            "sure": guess.sure,
            "missing": guess.missing,
            "doubled": guess.doubled,
            "why": "" if guess.sure else guess.why_unsure(self.name),
            # The first rows as they will be read: a multi-valued cell as its list of values.
            "split_rows": [self._split_row(cells) for _, cells in self.rows[:PREVIEW_ROWS]],
            "separators": [s.as_dict() for s in self.splittings.values()],
        }


def _short(cell: object) -> str:
    text = (
        cell
        if isinstance(cell, str)
        else json.dumps(cell, ensure_ascii=False)
        if cell is not None
        else ""
    )
    return text if len(text) <= PREVIEW_CELL_CHARS else text[:PREVIEW_CELL_CHARS] + "…"


def _jsonl_table(layout: str, name: str, objects: list, parsed: Parsed) -> Table:
    keys: dict[str, None] = {}
    for number, obj in objects:
        keys.update(dict.fromkeys(str(k) for k in obj))
        if len(keys) > MAX_KEYS:
            # Every row is spread over every key: a new key a line was quadratic in time and
            # memory (6,000 lines took 20 s), and each key would be a criterion.
            message = f"the lines so far use more than {MAX_KEYS} different keys"
            parsed.error(name, number, message, "too many keys")
            objects = []  # the file is read no further, and none of its rows is kept
            break
    header = list(keys)[:MAX_KEYS]
    rows = [(n, [obj.get(k) for k in header]) for n, obj in objects]
    return Table(name, layout, guess_columns(layout, header, []), rows, parsed, jsonl=True).settle()


def table_read(layout: str, name: str, data: bytes) -> Table:
    """The file's rows, header (if the first row names roles) and guessed column roles."""
    parsed = Parsed()
    raw = rows_of(data, name, parsed)
    objects = [(n, row) for n, row in raw if isinstance(row, dict)]
    if objects:
        return _jsonl_table(layout, name, objects, parsed)
    cells = [(n, row) for n, row in raw if isinstance(row, list)]
    found: list[str] | None = None
    if cells and header_in(layout, cells[0][1], [r for _, r in cells[1 : SAMPLE_ROWS + 1]]):
        found = [h.strip().lstrip("\ufeff") for h in cells[0][1]]
        cells = cells[1:]
    rows: list[tuple[int, list[object]]] = [(n, list(r)) for n, r in cells]
    guess = guess_columns(layout, found, [r for _, r in cells])
    return Table(name, layout, guess, rows, parsed).settle()
