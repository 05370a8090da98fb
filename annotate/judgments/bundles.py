"""The files of one human evaluation read together (no database): every file's column roles
guessed, the user's mapping applied across the files, each file read, and a preview of it all
for the user to confirm when a guess is unsure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from annotate.judgments.cells import SeparatorError, separators_parse
from annotate.judgments.columns import LAYOUTS, MappedColumn, mapping_apply
from annotate.judgments.embedded import ORIGINAL_PLACES, embedded_read
from annotate.judgments.parsing import (
    READERS,
    Contexts,
    Judgments,
    Outputs,
    Read,
    References,
    judgments_read,
)
from annotate.judgments.tables import Table, table_read

BUNDLE_FILES = ("contexts", "references", "systems", "judgments")
WIDE = ("", "systems")  # a score column per criterion (the default), or per system
NamedBytes = tuple[str, bytes]


class ColumnsUnsure(ValidationError):
    """Some file's columns could not be told apart and no mapping says how: nothing was read.
    `preview` holds every file's first rows and guessed roles, for the user to map them."""

    def __init__(self, reasons: list[str], preview: dict):
        super().__init__(
            "Some columns could not be told apart; nothing was written. "
            + "; ".join(reasons)
            + ". Map them as role=COLUMN (a header name or a column number)."
        )
        self.reasons = reasons
        self.preview = preview


@dataclass
class Bundle:
    judgments: Judgments
    outputs: Outputs | None = None
    contexts: Contexts | None = None
    references: References | None = None
    tables: dict[str, Table] = field(default_factory=dict)
    embedded: list[str] = field(default_factory=list)  # parts read from the judgments file
    options: ReadOptions | None = None  # as given, completed by what was remembered
    remembered: list[str] = field(default_factory=list)  # files read as a mapping remembered

    def remembrance(self) -> dict[str, tuple[list[str], list[str], dict[str, object]]]:
        """file → (header, roles, options) of each file with a header, to read the next file
        with the same header alike (the options are the judgments file's)."""
        options = self.options or ReadOptions()
        chosen: dict[str, object] = {"separators": options.separators}
        if options.original:
            chosen["original"] = options.original
        if options.wide:
            chosen["wide"] = options.wide
        return {
            key: (t.guess.header, list(t.guess.roles), chosen if key == "judgments" else {})
            for key, t in self.tables.items()
            if t.guess.header is not None
        }

    def name_of(self, key: str) -> str:
        """The name of the file a part came from (the judgments file for an embedded one)."""
        table = self.tables.get(key) or self.tables["judgments"]
        return table.name

    def separators(self) -> list[dict[str, object]]:
        """How each multi-valued column of the judgments file was split, and why."""
        return [s.as_dict() for s in self.tables["judgments"].splittings.values()]

    @property
    def parts(self) -> list[Read]:
        found = [self.contexts, self.references, self.outputs, self.judgments]
        return [part for part in found if part is not None]

    @property
    def unsure(self) -> list[str]:
        return [part.unsure for part in self.parts if part.unsure]

    def preview(self) -> dict:
        return _preview(self.tables, self.remembered)

    def columns(self) -> dict[str, list[dict[str, object]]]:
        """file → each column's name and the role it was read as (for the report)."""
        return {
            key: [{"name": c["name"], "role": c["role"]} for c in t.preview()["columns"]]
            for key, t in self.tables.items()
        }


def _preview(tables: dict[str, Table], remembered: list[str] | None = None) -> dict:
    files = {
        key: {**table.preview(), "remembered": key in (remembered or [])}
        for key, table in tables.items()
    }
    return {"sure": all(f["sure"] for f in files.values()), "files": files}


@dataclass(frozen=True)
class ReadOptions:
    """How to read what the columns alone do not say: each multi-valued role's separator
    (else detected) and where the original is among a cell's references."""

    separators: dict[str, str] = field(default_factory=dict)
    original: str = ""  # "": not said (the first, unless a mapping remembered says otherwise)
    wide: str = ""  # "systems": the score columns are one a system, named by it

    def __post_init__(self) -> None:
        if self.original and self.original not in ORIGINAL_PLACES:
            places = " or ".join(ORIGINAL_PLACES)
            raise ValidationError(f"original: {self.original!r}; expected {places}.")
        if self.wide not in WIDE:
            raise ValidationError(f"wide: {self.wide!r}; expected systems or nothing.")


def read_options(
    *, separators: Iterable[tuple[str, str]] = (), original: str = "", wide: str = ""
) -> ReadOptions:
    """Options from `role=separator` pairs, a place of the original and what the score
    columns stand for (as the command, the API and the page give them); a ValidationError
    naming what is wrong."""
    try:
        return ReadOptions(separators_parse(separators), original, wide)
    except SeparatorError as exc:
        raise ValidationError(f"separator: {exc}") from None


@dataclass(frozen=True)
class Remembered:
    """The roles a user gave the columns of a file with the same header, and its options."""

    roles: list[str]
    options: dict[str, object]


Recall = Callable[[str, list[str]], Remembered | None]  # (file, header) → what was remembered


def _recalled(
    tables: dict[str, Table], recall: Recall | None, options: ReadOptions
) -> tuple[ReadOptions, list[str]]:
    """Give each file with a header the roles remembered for it (a stale or foreign entry is
    passed over); the options given win over those remembered."""
    used: list[str] = []
    separators: dict[str, str] = {}
    original = wide = ""
    for key, table in tables.items():
        header = table.guess.header
        found = recall(key, header) if recall and header else None
        if found is None or len(found.roles) != len(table.guess.roles):
            continue
        if not set(found.roles) <= set(LAYOUTS[key].roles):
            continue
        table.guess.roles = list(found.roles)
        table.guess.checked()
        used.append(key)
        given = found.options.get("separators")
        pairs = [(str(r), str(v)) for r, v in given.items()] if isinstance(given, dict) else []
        try:
            kept = read_options(
                separators=pairs,
                original=str(found.options.get("original") or ""),
                wide=str(found.options.get("wide") or ""),
            )
        except ValidationError:
            continue  # options no longer understood: the roles still hold
        separators.update(kept.separators)
        original, wide = original or kept.original, wide or kept.wide
    given = options
    merged = ReadOptions(
        {**separators, **given.separators}, given.original or original, given.wide or wide
    )
    return merged, used


def _tables(
    files: Mapping[str, NamedBytes | None],
    columns: list[MappedColumn],
    options: ReadOptions | None = None,
    recall: Recall | None = None,
) -> tuple[dict[str, Table], ReadOptions, list[str]]:
    """The files' tables with their roles final (remembered, then as `columns` say), the
    options in force and the files read as remembered."""
    tables = {
        key: table_read(key, named[0], named[1])
        for key in BUNDLE_FILES
        if (named := files.get(key)) is not None
    }
    options, remembered = _recalled(tables, recall, options or ReadOptions())
    if "judgments" in tables:
        tables["judgments"].guess.wide_systems = options.wide == "systems"
        tables["judgments"].guess.checked()
    mapping_apply({key: table.guess for key, table in tables.items()}, columns)
    for table in tables.values():
        table.settle(options.separators)  # the roles are final: check rows, split cells
    return tables, options, remembered


def bundle_parse(
    *,
    judgments: NamedBytes,
    systems: NamedBytes | None = None,
    contexts: NamedBytes | None = None,
    references: NamedBytes | None = None,
    columns: list[MappedColumn] | None = None,
    options: ReadOptions | None = None,
    recall: Recall | None = None,
) -> Bundle:
    """Parse the files given as (name, bytes), columns mapped as `columns` says where it says
    (a mapping naming an unknown role or column raises `ColumnMappingError`). The contexts,
    references and responses the judgments file holds in columns stand for the files not
    given; a file given is read instead of those columns. `recall` gives the roles and
    options remembered for a file's header, applied before `columns`."""
    files = {"judgments": judgments, "systems": systems, "contexts": contexts}
    every = {**files, "references": references}
    tables, options, remembered = _tables(every, columns or [], options, recall)
    read: dict[str, Read] = {
        key: READERS[key](table) for key, table in tables.items() if key != "judgments"
    }
    embedded = embedded_read(tables["judgments"], options.original or "first")
    parts: dict[str, Read | None] = {
        "systems": embedded.outputs,
        "contexts": embedded.contexts,
        "references": embedded.references,
    }
    from_file = [key for key, part in parts.items() if part is not None and key not in read]
    for key in from_file:
        read[key] = parts[key]  # type: ignore[assignment]  # not None: filtered above
    # Columns that the files given stand for are not read: their problems are nobody's.
    bad_lines = frozenset(embedded.bad_lines) if from_file else frozenset()
    judged = judgments_read(tables["judgments"], bad_lines)
    judged.problems = [*judged.problems, *(embedded.problems if from_file else [])]
    return Bundle(
        judged,
        read.get("systems"),  # type: ignore[arg-type]
        read.get("contexts"),  # type: ignore[arg-type]
        read.get("references"),  # type: ignore[arg-type]
        tables,
        from_file,
        options,
        remembered,
    )


def judgments_preview(
    *,
    files: Mapping[str, NamedBytes | None],
    columns: list[MappedColumn] | None = None,
    options: ReadOptions | None = None,
    recall: Recall | None = None,
) -> dict:
    """Each file's header, first rows (multi-valued cells split) and guessed role per column,
    how its multi-valued columns are split and why, and whether every guess is `sure`;
    `columns` and `options` as in `bundle_parse`. Reads nothing but the files."""
    tables, _, remembered = _tables(files, columns or [], options, recall)
    return _preview(tables, remembered)


def bundle_check(bundle: Bundle) -> None:
    """Refuse a bundle some file of which was not read for its unsure columns."""
    if bundle.unsure:
        raise ColumnsUnsure(bundle.unsure, bundle.preview())
