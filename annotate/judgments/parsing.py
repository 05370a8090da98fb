"""Reading human-evaluation files as they come from the field (parsing only, no database).

Four layouts, after the ΔBLEU release: contexts (id, depth, context), references (id, ref1,
ref2, … — as many as the item has), system responses (system, id, response) and per-judge
judgments (judge, id, system, one or more criterion scores), as TSV, CSV or JSONL, with their
columns in any order under any of the names `columns.py` knows. Real files have byte-order
marks, stray quote characters inside unquoted fields and ragged rows; every oddity becomes a
`LineProblem` with its file and line, and a bad row is skipped, never fatal. A file whose
columns cannot be told apart is not read at all (`unsure` says why) until the user maps them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from annotate.judgments.cells import TooManyValues, cell_split_detected
from annotate.judgments.columns import CRITERION, IGNORE, JUDGE, REFERENCES
from annotate.judgments.tables import Parsed, Table, rows_of, table_read

__all__ = ["Parsed", "Table", "rows_of", "table_read"]  # the readers' input, for callers
TOO_FEW = "rows with too few fields"
NOT_A_NUMBER = "rows with a score that is not a number"
NO_REFERENCES = "items have no references"
TOO_LONG = "rows with a name or id longer than allowed"
TOO_MANY_VALUES = "rows with a cell of too many values"
WIDE_CRITERION = "score"  # the criterion of a file with a column per system
TEXT_IGNORED = "columns of text not read (not scores: map them if they hold something)"
# The database's column widths (models.py): a longer value is refused by its row, here.
MAX_CHARS = {"id": 200, "system": 200, "judge": 100, "criterion": 100}


@dataclass
class Read(Parsed):
    """What one file gave; `unsure` (why its columns could not be told apart) means nothing."""

    unsure: str = ""


def _too_long(parsed: Read, name: str, line: int, **values: str) -> bool:
    for what, value in values.items():
        if len(value) > MAX_CHARS[what]:
            message = f"the {what} is longer than {MAX_CHARS[what]} characters"
            parsed.error(name, line, message, TOO_LONG)
            return True
    return False


def _cell(value: object) -> str:
    return str(value).strip() if value is not None else ""


def _role_cells(table: Table, cells: list[object]) -> dict[str, list[object]]:
    """The row's values by role, in column order (cells past the header take the rest role)."""
    out: dict[str, list[object]] = {}
    for k, value in enumerate(cells):
        out.setdefault(table.guess.role_at(k), []).append(value)
    return out


def _one(values: dict[str, list[object]], role: str) -> str:
    return _cell(values[role][0]) if values.get(role) else ""


def _tail(table: Table, cells: list[object], role: str) -> str:
    """A headerless row's cells from `role`'s column on, tab-joined: tabs inside a context or a
    response split it into fields that belong together."""
    index = table.guess.first(role)
    return "\t".join(_cell(c) for c in cells[index:]) if index is not None else ""


def _unsure(table: Table, read: Read) -> bool:
    read.problems = table.parsed.problems
    if not table.guess.sure:
        read.unsure = table.guess.why_unsure(table.name)
    return bool(read.unsure)


@dataclass
class Contexts(Read):
    """id → (context turns, message): the last turn of the context is the message."""

    items: dict[str, tuple[list[str], str]] = field(default_factory=dict)


def _split_turns(context: str) -> list[str]:
    return cell_split_detected(context) if context.strip() else []


def _turns(table: Table, cells: list[object], values: dict[str, list[object]]) -> list[str]:
    raw = values.get("context", [None])[0]
    if isinstance(raw, list):
        turns = [_cell(t) for t in raw if _cell(t)]
    elif table.guess.header is None:
        turns = _split_turns(_tail(table, cells, "context"))
    else:
        turns = _split_turns(_cell(raw))
    message = _one(values, "message")  # the turn answered, when a column of its own has it
    return [*turns, message] if message else turns


def contexts_read(table: Table) -> Contexts:
    parsed = Contexts()
    if _unsure(table, parsed):
        return parsed
    name = table.name
    for number, cells in table.rows:
        values = _role_cells(table, cells)
        try:
            item_id, turns = _one(values, "item"), _turns(table, cells, values)
        except TooManyValues as exc:
            parsed.error(name, number, f"context: {exc}", TOO_MANY_VALUES)
            continue
        if not item_id or not turns:
            parsed.error(name, number, "an id and a non-empty context are needed", TOO_FEW)
            continue
        if _too_long(parsed, name, number, id=item_id):
            continue
        if item_id in parsed.items:
            message = f"id {item_id!r} repeated: the first one is kept"
            parsed.warn(name, number, message, "ids repeated (the first one is kept)", item_id)
            continue
        parsed.items[item_id] = (turns[:-1], turns[-1])
    return parsed


@dataclass
class References(Read):
    items: dict[str, list[str]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # where each item first appears


def _references(values: list[object]) -> list[str]:
    out: list[str] = []
    for value in values:
        for ref in value if isinstance(value, list) else [value]:
            text = _cell(ref.get("text") if isinstance(ref, dict) else ref)
            if text:
                out.append(text)
    return out


def references_read(table: Table) -> References:
    """id followed by any number of references (ragged rows are the norm here)."""
    parsed = References()
    if _unsure(table, parsed):
        return parsed
    for number, cells in table.rows:
        values = _role_cells(table, cells)
        item_id, refs = _one(values, "item"), _references(values.get(REFERENCES, []))
        if original := _one(values, "original"):  # named by its column: stored first
            refs = [original, *(r for r in refs if r != original)]
        if not item_id:
            parsed.error(table.name, number, "the id is empty", "rows without an id")
            continue
        if _too_long(parsed, table.name, number, id=item_id):
            continue
        if not refs and not parsed.items.get(item_id):
            message = f"item {item_id!r} has no references"
            parsed.warn(table.name, number, message, NO_REFERENCES, item_id)
        parsed.lines.setdefault(item_id, number)
        parsed.items.setdefault(item_id, []).extend(refs)
    return parsed


@dataclass
class Outputs(Read):
    """system → {id: response} and where each system first appears."""

    by_system: dict[str, dict[str, str]] = field(default_factory=dict)


def outputs_read(table: Table) -> Outputs:
    parsed = Outputs()
    if _unsure(table, parsed):
        return parsed
    name, headerless = table.name, table.guess.header is None
    for number, cells in table.rows:
        values = _role_cells(table, cells)
        system, item_id = _one(values, "system"), _one(values, "item")
        if headerless and len(cells) < 3:
            message = f"expected system, id, response; found {len(cells)}"
            parsed.error(name, number, message, TOO_FEW)
            continue
        response = _tail(table, cells, "response") if headerless else _one(values, "response")
        if headerless and len(cells) > 3:
            message = "more than 3 fields: the rest joined to the response"
            parsed.warn(name, number, message, "rows with more than 3 fields (joined)")
        if not system or not item_id:
            parsed.error(name, number, "system and id are needed", "rows without system or id")
            continue
        if _too_long(parsed, name, number, id=item_id, system=system):
            continue
        outputs = parsed.by_system.setdefault(system, {})
        if item_id in outputs:
            message = f"second response of {system!r} for {item_id!r} ignored"
            parsed.warn(name, number, message, "second responses ignored", f"{system}/{item_id}")
            continue
        outputs[item_id] = response
    return parsed


@dataclass(frozen=True)
class JudgmentRow:
    line: int
    judge: str  # "" when the scores are aggregated over judges
    item: str
    system: str
    scores: dict[str, float]
    judges: int | None = None  # over how many judges, when a column says


@dataclass
class Judgments(Read):
    rows: list[JudgmentRow] = field(default_factory=list)
    criteria: list[str] = field(default_factory=list)
    aggregated: bool = False  # no judge column: one row per system × item, scores averaged
    judges_column: str = ""  # the column saying over how many judges, if any


def _criteria_cells(table: Table, cells: list[object]) -> list[tuple[str, object]]:
    """(criterion, value) of the row: named by the header (exactly as written), `scoreN` in a
    file without one; a JSON object of criterion: value is spread out."""
    out: list[tuple[str, object]] = []
    header = table.guess.header or []
    number = 0
    for k, value in enumerate(cells):
        if table.guess.role_at(k) != CRITERION:
            continue
        number += 1
        if isinstance(value, dict):
            out += [(str(key), v) for key, v in value.items()]
        elif value is not None:
            out.append((header[k] if k < len(header) else f"score{number}", value))
    return out


def _scores(row: list[tuple[str, object]], parsed: Judgments, name: str, line: int):
    scores = {}
    for criterion, value in row:
        text = _cell(value).strip('"').strip()
        if not text:
            continue
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):  # "nan", "inf" and "1e999" parse, but score nothing
            parsed.error(name, line, f"{criterion}: {value!r} is not a number", NOT_A_NUMBER)
            return None
        scores[criterion] = number
    return scores


def _judges(table: Table, cells: list[object], parsed: Judgments, line: int) -> int | None:
    """The row's count of judges (the n_judges column); 0 when it is not a whole number ≥ 1."""
    k = table.guess.first("n_judges")
    text = _cell(cells[k]) if k is not None and k < len(cells) else ""
    if k is None or not text:
        return None
    try:
        count = float(text)
    except ValueError:
        count = 0
    if count < 1 or not count.is_integer():
        message = f"column {table.column_name(k)!r}: {text!r} is not a number of judges"
        parsed.error(table.name, line, message, "rows with a count of judges not a number")
        return 0
    return int(count)


def _text_ignored(table: Table, parsed: Judgments) -> None:
    for k in table.guess.text_columns:
        if table.guess.role_at(k) == IGNORE:
            message = f"column {table.column_name(k)!r} holds text: not read as a score"
            parsed.warn(table.name, 1, message, TEXT_IGNORED, table.column_name(k))


def judgments_read(table: Table, skip: frozenset[int] = frozenset()) -> Judgments:
    """Per-judge rows: judge, id, system, then one score per criterion (header names them;
    without a header they are score1, score2, …). JSONL: {"judge", "id", "system",
    "scores": {criterion: value}} or criteria as keys of their own. Without a judge column,
    one row per system × item of scores aggregated over judges (`n_judges` says how many).
    `skip`: lines refused already for another of their cells."""
    parsed = Judgments()
    if _unsure(table, parsed):
        return parsed
    name, header = table.name, table.guess.header
    parsed.aggregated = JUDGE not in table.guess.roles
    if (k := table.guess.first("n_judges")) is not None:
        parsed.judges_column = table.column_name(k)
    _text_ignored(table, parsed)
    wanted = table.guess.roles.count(CRITERION)
    wide = int(table.guess.wide_systems)
    for number, cells in table.rows:
        if number in skip:
            continue
        values = _role_cells(table, cells)
        keys = [_one(values, role) for role in (JUDGE, "item", "system")]
        judges = _judges(table, cells, parsed, number)
        if judges == 0:
            continue
        if not table.jsonl and len(cells) < 4 - parsed.aggregated - wide:
            needed = ", ".join(
                ["judge"] * (not parsed.aggregated) + ["id"] + ["system"] * (not wide)
            )
            message = f"expected {needed} and a score; found {len(cells)} fields"
            parsed.error(name, number, message, TOO_FEW)
            continue
        found = sum(1 for c in values.get(CRITERION, []) if _cell(c))
        if header is not None and not table.jsonl and found != wanted:
            message = f"{found} scores for {wanted} criteria"
            parsed.warn(name, number, message, "rows with a score missing or too many")
        scores = _scores(_criteria_cells(table, cells), parsed, name, number)
        if scores is None:
            continue
        if not all(keys[int(parsed.aggregated) : 3 - wide]) or not scores:
            message = f"{'' if parsed.aggregated else 'judge, '}id, system and a score are needed"
            parsed.error(name, number, message, "rows without judge, id, system or score")
            continue
        # A column per system (wide): its header names the system, its cells one criterion.
        by_system = (
            {s: {WIDE_CRITERION: v} for s, v in scores.items()} if wide else {keys[2]: scores}
        )
        system = max(by_system, key=len)
        criterion = WIDE_CRITERION if wide else max(scores, key=len)
        if _too_long(parsed, name, number, judge=keys[0], id=keys[1], system=system) or (
            _too_long(parsed, name, number, criterion=criterion)
        ):
            continue
        for system, row_scores in by_system.items():
            parsed.criteria += [c for c in row_scores if c not in parsed.criteria]
            parsed.rows.append(JudgmentRow(number, keys[0], keys[1], system, row_scores, judges))
    return parsed


READERS = {
    "contexts": contexts_read,
    "references": references_read,
    "systems": outputs_read,
    "judgments": judgments_read,
}
