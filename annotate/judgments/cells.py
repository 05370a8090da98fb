"""Cells that hold several values: the references of an item in one cell, or its context's
turns (no database).

Published evaluations join values with a tab, `|||`, `||||`, ` EOS `, `__eou__`, a newline or
write a JSON list. A column's separator is given (`references=tab`) or detected over the whole
column: the separator found in the most cells, ties broken in the order of `SEPARATORS`, so
that the same file always reads the same way, and the choice is explained in words. A cell
holding more than `MAX_VALUES` values is refused by its row and column, not split.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

MULTI_VALUED = ("references", "context")
MAX_VALUES = 500  # per cell: an item's references or turns; real files have < 50
# A separator found in fewer cells than this share is taken for text (a reference that holds
# a newline), not for the column's separator.
MIN_SHARE = 0.1
DETECT_CELLS = 1000  # the first non-empty cells of a column decide (2.8 M searches took 5 s)
JSON = "json"
# name → (how the preview writes it, the pattern that splits it). Pipes are matched as whole
# runs, so a `||||` file is not also read as a `|||` one. The order breaks ties.
SEPARATORS: dict[str, tuple[str, re.Pattern[str]]] = {
    JSON: ("a JSON list", re.compile(r"^$")),  # not split by pattern: parsed
    "eos": ("' EOS '", re.compile(r"\s+EOS\s+")),
    "eou": ("'__eou__'", re.compile(r"\s*__eou__\s*")),
    "||||": ("'||||'", re.compile(r"(?<!\|)\|\|\|\|(?!\|)")),
    "|||": ("'|||'", re.compile(r"(?<!\|)\|\|\|(?!\|)")),
    "tab": ("a tab", re.compile(r"\t")),
    "newline": ("a newline", re.compile(r"\r?\n")),
}
ALIASES = {"\t": "tab", "\\t": "tab", "\n": "newline", "\\n": "newline", "EOS": "eos",
           " EOS ": "eos", "__eou__": "eou", "none": "none"}  # fmt: skip
NONE = "none"  # the cell is one value


class SeparatorError(ValueError):
    """A separator option naming an unknown separator or a role that holds one value."""


def separator_named(text: str) -> str:
    """The separator's name for what a user wrote (`tab`, `\\t`, `|||`, ` EOS `, `json` …)."""
    name = ALIASES.get(text, ALIASES.get(text.strip(), text.strip().lower()))
    if name not in SEPARATORS and name != NONE:
        known = ", ".join([*SEPARATORS, NONE])
        raise SeparatorError(f"Unknown separator {text!r}; separators: {known}.")
    return name


def separators_parse(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """role → separator name, from `references=tab` pairs (the command, the API, the page)."""
    out = {}
    for role, text in pairs:
        role = role.strip().lower()
        if role not in MULTI_VALUED:
            roles = ", ".join(MULTI_VALUED)
            raise SeparatorError(f"{role!r} holds one value a cell; separators are for {roles}.")
        out[role] = separator_named(text)
    return out


def _json_list(cell: str) -> list[str] | None:
    text = cell.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if not isinstance(found, list) or not all(isinstance(v, str | int | float) for v in found):
        return None
    return [str(v) for v in found]


def _occurs(name: str, cell: str) -> bool:
    if name == JSON:
        return _json_list(cell) is not None
    return SEPARATORS[name][1].search(cell) is not None


@dataclass(frozen=True)
class Splitting:
    """How one column's cells are split, and why (for the preview and the report)."""

    column: str
    role: str
    separator: str  # a key of SEPARATORS, or NONE
    given: bool
    found_in: int = 0  # cells holding the separator
    cells: int = 0  # non-empty cells looked at

    def explain(self) -> str:
        if self.given:
            shown = SEPARATORS[self.separator][0] if self.separator != NONE else "nothing"
            return f"{self.column} ({self.role}): split at {shown}, as given"
        if self.separator == NONE:
            return (
                f"{self.column} ({self.role}): one value a cell (no separator in a tenth of "
                f"its {self.cells} cells)"
            )
        shown = SEPARATORS[self.separator][0]
        among = f"the first {self.cells}" if self.cells >= DETECT_CELLS else str(self.cells)
        return (
            f"{self.column} ({self.role}): split at {shown}, found in {self.found_in} of "
            f"{among} cells (detected)"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "column": self.column,
            "role": self.role,
            "separator": self.separator,
            "given": self.given,
            "explanation": self.explain(),
        }


def separator_detect(cells: Iterable[object], column: str, role: str) -> Splitting:
    """The separator found in the most of the first DETECT_CELLS non-empty string cells
    (ties: `SEPARATORS`' order)."""
    counts = dict.fromkeys(SEPARATORS, 0)
    looked = 0
    for cell in cells:
        if not isinstance(cell, str) or not cell.strip():
            continue
        looked += 1
        if looked > DETECT_CELLS:
            looked -= 1
            break
        for name in SEPARATORS:
            counts[name] += _occurs(name, cell)
    best = max(SEPARATORS, key=lambda name: counts[name])  # the first of equal counts
    if not counts[best] or counts[best] < MIN_SHARE * looked:
        return Splitting(column, role, NONE, False, counts[best], looked)
    return Splitting(column, role, best, False, counts[best], looked)


class TooManyValues(ValueError):
    pass


def cell_split(cell: object, separator: str) -> list[str]:
    """The cell's values, stripped, empty ones left out; a JSON list (from JSONL) as it is.
    More than MAX_VALUES is refused before splitting (a cell of 10,000 separators)."""
    if cell is None:
        return []
    if isinstance(cell, list):
        values = [str(v).strip() for v in cell if v is not None]
    elif separator == JSON:
        text = str(cell)
        found = _json_list(text)
        values = [v.strip() for v in found] if found is not None else [text.strip()]
    elif separator == NONE:
        values = [str(cell).strip()]
    else:
        text, pattern = str(cell), SEPARATORS[separator][1]
        if len(pattern.findall(text)) >= MAX_VALUES:
            raise TooManyValues(f"more than {MAX_VALUES} values in one cell")
        values = [v.strip() for v in pattern.split(text)]
    if len(values) > MAX_VALUES:
        raise TooManyValues(f"{len(values):,} values in one cell (at most {MAX_VALUES})")
    return [v for v in values if v]


def cell_split_detected(cell: str) -> list[str]:
    """One cell split at the separator it holds (a contexts file's context, cell by cell)."""
    return cell_split(cell, separator_detect([cell], "", "").separator)
