"""Which column of a human-evaluation file holds what (no database).

Real files name their columns as their authors liked: `SystemID`, `InstanceID`, `WorkerId`.
A header is recognised by role names compared case-insensitively without spaces, underscores
and hyphens, through common synonyms; a file without one is read in the documented positional
layout when its rows fit it. When a required role is missing or claimed twice the guess is not
`sure`, and the user maps columns themselves: `role=COLUMN` (a header name or a 1-based
number), optionally for one file only (`judgments.judge=WorkerId`).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from core import strict_json
from core.converters import natural_or_none

IGNORE = "ignore"
CRITERION = "criterion"
REFERENCES = "references"
# Normalised names (lower case, no spaces, underscores or hyphens) of each role's columns.
SYNONYMS: dict[str, frozenset[str]] = {
    role: frozenset(names.split())
    for role, names in {
        "system": "system systemid model modelid modelname systemname sys",
        "item": "id item itemid instance instanceid contextid sampleid dialogueid",
        "judge": "judge judgeid annotator annotatorid worker workerid rater raterid",
        "response": "response output hypothesis text reply generated generation",
        "context": "context contexts dialogue history turns conversation",
        "depth": "depth",
        # A published evaluation in one file: the reply the references were written for,
        # the turn answered, and how many judges a row's mean score averages.
        "original": "original originalreply originalresponse originalreference groundtruth",
        "message": "message utterance lastturn lastutterance query",
        "n_judges": "njudges numjudges judgecount nraters numraters ratercount nannotators "
        "numannotators nworkers numworkers",
    }.items()
}
SINGLE_ROLES = tuple(SYNONYMS)  # a file has at most one column of each
JUDGE = "judge"
MANY_ROLES = (REFERENCES, CRITERION, IGNORE)
ROLES = (*SINGLE_ROLES, *MANY_ROLES)


@dataclass(frozen=True)
class Layout:
    """One kind of file: the roles it needs, may have, and gives to the columns left over."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    rest: str  # the role of a column no name claims (and of cells past the header's end)
    positional: tuple[str, ...]  # the columns' roles when the file has no header

    @property
    def roles(self) -> tuple[str, ...]:
        """Each role once: the rest is often a required role too (criterion)."""
        return tuple(dict.fromkeys((*self.required, *self.optional, self.rest, IGNORE)))


LAYOUTS = {
    "contexts": Layout(("item", "context"), ("depth", "message"), IGNORE,
                       ("item", "depth", "context")),
    "references": Layout(("item", REFERENCES), ("original",), REFERENCES, ("item", REFERENCES)),
    "systems": Layout(("system", "item", "response"), (), IGNORE, ("system", "item", "response")),
    # Without a judge column the rows are scores already aggregated over judges, one row per
    # system × item; such a file often carries the items, references and responses too.
    "judgments": Layout(("item", "system", CRITERION),
                        (JUDGE, "response", REFERENCES, "original", "context", "message",
                         "n_judges"),
                        CRITERION, (JUDGE, "item", "system", CRITERION)),
    # Scores of metrics computed elsewhere: one row per system × item, a column per metric.
    "metrics": Layout(("item", "system", CRITERION), (), CRITERION, ("item", "system", CRITERION)),
}  # fmt: skip
FILES = tuple(LAYOUTS)
SAMPLE_ROWS = 20  # rows looked at to judge a headerless file's layout
TEXT_SAMPLE_ROWS = 200  # rows looked at to tell a text column from a score column
SHOWN_NAMES = 20  # header names quoted in a message


def normalised(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name.strip().lstrip("\ufeff")).lower()


def header_key(header: Sequence[str]) -> str:
    """A header's identity for remembering its mapping: the SHA-256 of its names as written."""
    names = "\x1f".join(name.strip() for name in header)
    return hashlib.sha256(names.encode("utf-8", "surrogatepass")).hexdigest()


def role_named(name: str) -> str | None:
    """The role a header name means (`InstanceID` → item, `ref_2` → references), or None."""
    key = normalised(name)
    for role, names in SYNONYMS.items():
        if key in names:
            return role
    return REFERENCES if key.startswith("ref") else None


def _is_number(value: object) -> bool:
    try:
        return math.isfinite(float(str(value).strip().strip('"')))
    except ValueError:
        return False


@dataclass
class ColumnGuess:
    """The role of each column of one file, and whether the reading can go ahead unasked."""

    layout: str
    header: list[str] | None
    roles: list[str]
    missing: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)
    positional_misfit: bool = False
    text_columns: list[int] = field(default_factory=list)  # unnamed, mostly words: ignored
    repeated: str = ""  # without a judge column, a system × item given twice (where)
    same_names: list[str] = field(default_factory=list)  # criteria named alike: one score lost
    wide_systems: bool = False  # a score column per system, named by it: no system column

    @property
    def sure(self) -> bool:
        unsure = self.missing or self.doubled or self.positional_misfit or self.repeated
        return not (unsure or self.same_names)

    def role_at(self, index: int) -> str:
        """A cell's role; cells past the known columns (ragged rows) take the layout's rest."""
        return self.roles[index] if index < len(self.roles) else LAYOUTS[self.layout].rest

    def first(self, role: str) -> int | None:
        return self.roles.index(role) if role in self.roles else None

    def why_unsure(self, name: str) -> str:
        shown = self.header[:SHOWN_NAMES] if self.header else []
        names = ", ".join(shown) if shown else f"{len(self.roles)} unnamed columns"
        if self.header and len(self.header) > SHOWN_NAMES:
            names += f", … ({len(self.header)} in all)"
        parts = [f"no column is the {role}" for role in self.missing]
        parts += [f"several columns claim the {role}" for role in self.doubled]
        if self.repeated:
            parts.append(self.repeated)
        parts += [f"several criterion columns are named {name!r}" for name in self.same_names]
        if self.positional_misfit and not parts:
            order = ", ".join(LAYOUTS[self.layout].positional)
            parts.append(f"no header, and the rows do not fit {order}")
        return f"{name}: {'; '.join(parts)} (columns: {names})"

    def checked(self) -> ColumnGuess:
        """Recount what is missing or doubled after the roles changed."""
        layout = LAYOUTS[self.layout]
        required = [r for r in layout.required if not (self.wide_systems and r == "system")]
        self.missing = [r for r in required if r not in self.roles]
        self.doubled = [r for r in SINGLE_ROLES if self.roles.count(r) > 1]
        header = self.header or []
        criteria = [k for k, r in enumerate(self.roles) if r == CRITERION and k < len(header)]
        names = [header[k].strip() for k in criteria]
        self.same_names = sorted({n for n in names if names.count(n) > 1})
        return self

    def check_rows(self, rows: Sequence[tuple[int, Sequence[object]]]) -> None:
        """Without a judge column each row is one system × item's aggregated scores: a pair
        given twice means per-judge rows whose judge column was not recognised, so ask."""
        self.repeated = ""
        item, system = self.first("item"), self.first("system")
        if self.layout != "judgments" or JUDGE in self.roles or item is None:
            return
        if system is None and not self.wide_systems:
            return
        seen: dict[tuple[str, str], int] = {}
        for number, cells in rows:
            if max(item, system or 0) >= len(cells):
                continue
            named = str(cells[system]).strip() if system is not None else ""
            key = (named, str(cells[item]).strip())
            if key in seen:
                what = f"item {key[1]!r} comes"
                if named:
                    what = f"system {named!r} and item {key[1]!r} come"
                self.repeated = (
                    f"no column is the judge, yet {what} twice (lines {seen[key]} and "
                    f"{number}): map the judge column, or give one row per system and item "
                    "(scores already aggregated)"
                )
                return
            seen[key] = number


def header_in(layout: str, first: Sequence[str], rest: Sequence[Sequence[str]]) -> bool:
    """Whether `first` names the columns: two cells name roles (or every cell does), or one does
    and a column that holds numbers below holds a word here (a criterion's name)."""
    cells = [c for c in first if c.strip()]
    named = sum(role_named(c) is not None for c in cells)
    if named >= 2 or (cells and named == len(cells)):
        return True
    numeric_below = [
        k
        for k in range(len(first))
        if rest and all(k < len(row) and _is_number(row[k]) for row in rest[:SAMPLE_ROWS])
    ]
    word_over_numbers = any(first[k].strip() and not _is_number(first[k]) for k in numeric_below)
    return word_over_numbers and (named >= 1 or layout == "judgments")


def guess_columns(
    layout_name: str, header: list[str] | None, rows: Sequence[Sequence[object]]
) -> ColumnGuess:
    """Roles by header name, or by position when there is no header (then `sure` only if the
    first rows fit the documented layout)."""
    layout = LAYOUTS[layout_name]
    if header is not None:
        roles, text = [], []
        for k, name in enumerate(header):
            role = role_named(name)
            if role is None and layout.rest == CRITERION and _mostly_words(rows, k):
                role = IGNORE  # a response or a comment is never a score
                text.append(k)
            roles.append(role if role in layout.roles else (IGNORE if role else layout.rest))
        return ColumnGuess(layout_name, header, roles, text_columns=text).checked()
    width = max((len(r) for r in rows[:SAMPLE_ROWS]), default=0)
    roles = list(layout.positional[:width])
    if layout_name == "contexts" and width == 2:  # id, context: no depth
        roles = ["item", "context"]
    guess = ColumnGuess(layout_name, None, roles + [layout.rest] * (width - len(roles)))
    guess.checked()
    guess.positional_misfit = bool(guess.missing) or not _fits(layout_name, rows, guess)
    guess.missing = []
    return guess


def _mostly_words(rows: Sequence[Sequence[object]], k: int) -> bool:
    """Whether most of the column's non-empty cells (in the first rows) are not numbers."""
    cells = [str(r[k]).strip() for r in rows[:TEXT_SAMPLE_ROWS] if k < len(r) and r[k] is not None]
    filled = [c for c in cells if c]
    return sum(not _is_number(c) for c in filled) * 2 > len(filled)


def _fits(layout_name: str, rows: Sequence[Sequence[object]], guess: ColumnGuess) -> bool:
    """Whether the sample's numbers are where the positional layout puts them."""
    numeric = [k for k, role in enumerate(guess.roles) if role in (CRITERION, "depth")]
    for row in rows[:SAMPLE_ROWS]:
        for k in numeric:
            if k < len(row) and str(row[k]).strip() and not _is_number(row[k]):
                return False
    return True


# --- explicit mapping ---------------------------------------------------------------------


class ColumnMappingError(ValidationError):
    """A mapping that names an unknown role or file, or a column the file does not have."""


@dataclass(frozen=True)
class MappedColumn:
    file: str  # "" for every file whose layout has the role
    role: str
    column: str  # a header name or a 1-based column number


def mapping_parse(pairs: Iterable[tuple[str, object]]) -> list[MappedColumn]:
    """`[file.]role` → column(s) pairs (from `--column`, a JSON object or a form) checked for
    known roles and files; a list value maps several columns to a role."""
    mapped = []
    for key, value in pairs:
        file, _, role = str(key).strip().rpartition(".")
        role = role.strip().lower()
        if role not in ROLES:
            raise ColumnMappingError(
                f"Unknown column role {role!r} in {key!r}; roles: {', '.join(ROLES)}."
            )
        if file and file not in FILES:
            raise ColumnMappingError(
                f"Unknown file {file!r} in {key!r}; files: {', '.join(FILES)}."
            )
        values = value if isinstance(value, list) else [value]
        for column in values:
            if not isinstance(column, str | int) or isinstance(column, bool) or not str(column):
                raise ColumnMappingError(f"{key}: a column is a header name or a number.")
            mapped.append(MappedColumn(file, role, str(column).strip()))
    return mapped


def mapping_from_option(options: Iterable[str]) -> list[MappedColumn]:
    """`role=COLUMN` strings, as the command line gives them."""
    pairs = []
    for option in options:
        key, sep, column = option.partition("=")
        if not sep or not key.strip() or not column.strip():
            raise ColumnMappingError(f"--column {option!r}: expected ROLE=COLUMN.")
        pairs.append((key, column))
    return mapping_parse(pairs)


MAX_MAPPING_CHARS = 10_000


def mapping_from_json(text: str) -> list[MappedColumn]:
    """A JSON object of role (or file.role) → column name or number, or a list of them."""
    if len(text) > MAX_MAPPING_CHARS:
        raise ColumnMappingError(f"columns: longer than {MAX_MAPPING_CHARS:,} characters.")
    try:
        found = strict_json.loads(text)
    except strict_json.StrictJSONError as exc:
        raise ColumnMappingError(f"columns: not valid JSON ({exc.describe()}).") from None
    if not isinstance(found, dict):
        raise ColumnMappingError('columns: expected a JSON object such as {"judge": "WorkerId"}.')
    return mapping_parse(found.items())


def separators_from_json(text: str) -> list[tuple[str, str]]:
    """(role, separator) pairs from a JSON object such as {"references": "tab"} ("": none)."""
    if not text.strip():
        return []
    try:
        found = strict_json.loads(text)
    except strict_json.StrictJSONError as exc:
        raise ColumnMappingError(f"separators: not valid JSON ({exc.describe()}).") from None
    if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
        example = '{"references": "tab"}'
        raise ColumnMappingError(f"separators: expected a JSON object such as {example}.")
    return [(str(role), value) for role, value in found.items()]


def _index_of(guess: ColumnGuess, column: str) -> int | None:
    if guess.header is not None:
        exact = [k for k, name in enumerate(guess.header) if name.strip() == column]
        loose = [k for k, name in enumerate(guess.header) if normalised(name) == normalised(column)]
        if exact or len(loose) == 1:
            return (exact or loose)[0]
    position = natural_or_none(column)
    if position is not None and 1 <= position <= len(guess.roles):
        return position - 1
    return None


def mapping_apply(guesses: dict[str, ColumnGuess], mapped: list[MappedColumn]) -> None:
    """Give the mapped columns their roles (a single role leaves the column that had it);
    a column found in no file it could belong to is an error naming it."""
    for entry in mapped:
        targets = (
            [entry.file] if entry.file else [f for f in guesses if entry.role in LAYOUTS[f].roles]
        )
        found = False
        for file in targets:
            guess = guesses.get(file)
            if guess is None:
                if entry.file:
                    raise ColumnMappingError(
                        f"{entry.file}.{entry.role}: no {file} file was given."
                    )
                continue
            if entry.role not in LAYOUTS[file].roles:
                raise ColumnMappingError(f"A {file} file has no {entry.role} column.")
            index = _index_of(guess, entry.column)
            if index is None:
                continue
            found = True
            if entry.role in SINGLE_ROLES:
                guess.roles = [IGNORE if r == entry.role else r for r in guess.roles]
            guess.roles[index] = entry.role
            guess.positional_misfit = False  # the user has said how to read it
        if not found:
            where = entry.file or " or ".join(targets) or "any"
            raise ColumnMappingError(
                f"{entry.role}={entry.column}: no column {entry.column!r} in the {where} file."
            )
    for guess in guesses.values():
        guess.checked()
