"""The items, references and responses a judgments file carries in columns of its own, as
published evaluations come in one file (no database).

A row names a system and an item; its response is that system's output, its context and
references are the item's (repeated on every system's row: the first row of an item gives
them, a later row that differs is a warning). What comes out has the shape the separate
files give (`parsing.Contexts`, `References`, `Outputs`), so the import writes both alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotate.judgments.cells import TooManyValues
from annotate.judgments.columns import REFERENCES
from annotate.judgments.parsing import TOO_MANY_VALUES, Contexts, Outputs, References
from annotate.judgments.tables import Parsed, Table

ORIGINAL_PLACES = ("first", "last")  # where the original is among a row's references
ITEM_ROLES = ("context", "message", REFERENCES, "original")
DIFFERING = "items given another context or references on a later row (the first is kept)"


@dataclass
class Embedded(Parsed):
    contexts: Contexts | None = None
    references: References | None = None
    outputs: Outputs | None = None
    bad_lines: set[int] = field(default_factory=set)  # rows refused: their scores are not read


def _values(table: Table, cells: list[object], role: str) -> list[str]:
    """Every value of the role's columns in the row, in column order (TooManyValues)."""
    out: list[str] = []
    for k, column_role in enumerate(table.guess.roles):
        if column_role == role and k < len(cells):
            try:
                out += table.values(k, cells[k])
            except TooManyValues as exc:
                raise TooManyValues(f"column {table.column_name(k)!r}: {exc}") from None
    return out


def _references(table: Table, cells: list[object], original: str) -> list[str]:
    """The original first: from its own column, or moved from the last place if so told."""
    refs = _values(table, cells, REFERENCES)
    own = _values(table, cells, "original")
    if own:
        return [own[0], *(r for r in refs if r != own[0])]
    if original == "last" and refs:
        return [refs[-1], *refs[:-1]]
    return refs


@dataclass(frozen=True)
class _Item:
    turns: list[str]
    message: str
    references: list[str]


def _item(table: Table, cells: list[object], original: str) -> _Item:
    turns = _values(table, cells, "context")
    message = _values(table, cells, "message")
    if message:
        return _Item(turns, message[0], _references(table, cells, original))
    return _Item(turns[:-1], turns[-1] if turns else "", _references(table, cells, original))


def _one(table: Table, cells: list[object], role: str) -> str:
    k = table.guess.first(role)
    value = cells[k] if k is not None and k < len(cells) else None
    return str(value).strip() if value is not None else ""


def embedded_read(table: Table, original: str = "first") -> Embedded:
    """The parts the judgments table's columns hold (None for a part it has no column of)."""
    roles = set(table.guess.roles)
    found = Embedded(
        contexts=Contexts() if roles & {"context", "message"} else None,
        references=References() if roles & {REFERENCES, "original"} else None,
        outputs=Outputs() if "response" in roles else None,
    )
    if not (found.contexts or found.references or found.outputs) or not table.guess.sure:
        return found
    # An item's cells repeat on every system's row: split them once, compare them as written.
    item_columns = [k for k, role in enumerate(table.guess.roles) if role in ITEM_ROLES]
    first: dict[str, tuple[object, ...]] = {}
    for number, cells in table.rows:
        item_id, system = _one(table, cells, "item"), _one(table, cells, "system")
        if not item_id or not (system or table.guess.wide_systems):
            continue  # the judgments' reader says so
        written = tuple(cells[k] if k < len(cells) else None for k in item_columns)
        if item_id in first:
            if first[item_id] != written:
                message = f"item {item_id!r}: another context or references than on its first row"
                found.warn(table.name, number, message, DIFFERING, item_id)
        else:
            try:
                _keep_item(found, number, item_id, _item(table, cells, original))
            except TooManyValues as exc:
                found.error(table.name, number, str(exc), TOO_MANY_VALUES)
                found.bad_lines.add(number)
                continue
            first[item_id] = written
        if found.outputs is not None and system:
            outputs = found.outputs.by_system.setdefault(system, {})
            outputs.setdefault(item_id, _one(table, cells, "response"))
    return found


def _keep_item(found: Embedded, number: int, item_id: str, item: _Item) -> None:
    if found.contexts is not None and (item.turns or item.message):
        found.contexts.items[item_id] = (item.turns, item.message)
    if found.references is not None:
        found.references.items[item_id] = item.references
        found.references.lines[item_id] = number
