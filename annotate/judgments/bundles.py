"""The files of one human evaluation read together (no database): every file's column roles
guessed, the user's mapping applied across the files, each file read, and a preview of it all
for the user to confirm when a guess is unsure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from annotate.judgments.cells import SeparatorError, separators_parse
from annotate.judgments.columns import MappedColumn, mapping_apply
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
        return _preview(self.tables)

    def columns(self) -> dict[str, list[dict[str, object]]]:
        """file → each column's name and the role it was read as (for the report)."""
        return {
            key: [{"name": c["name"], "role": c["role"]} for c in t.preview()["columns"]]
            for key, t in self.tables.items()
        }


def _preview(tables: dict[str, Table]) -> dict:
    files = {key: table.preview() for key, table in tables.items()}
    return {"sure": all(f["sure"] for f in files.values()), "files": files}


@dataclass(frozen=True)
class ReadOptions:
    """How to read what the columns alone do not say: each multi-valued role's separator
    (else detected) and where the original is among a cell's references."""

    separators: dict[str, str] = field(default_factory=dict)
    original: str = "first"

    def __post_init__(self) -> None:
        if self.original not in ORIGINAL_PLACES:
            places = " or ".join(ORIGINAL_PLACES)
            raise ValidationError(f"original: {self.original!r}; expected {places}.")


def read_options(*, separators: Iterable[tuple[str, str]] = (), original: str = "") -> ReadOptions:
    """Options from `role=separator` pairs and a place of the original (as the command, the
    API and the page give them); a ValidationError naming what is wrong."""
    try:
        return ReadOptions(separators_parse(separators), original or "first")
    except SeparatorError as exc:
        raise ValidationError(f"separator: {exc}") from None


def _tables(
    files: Mapping[str, NamedBytes | None],
    columns: list[MappedColumn],
    options: ReadOptions | None = None,
) -> dict[str, Table]:
    tables = {
        key: table_read(key, named[0], named[1])
        for key in BUNDLE_FILES
        if (named := files.get(key)) is not None
    }
    mapping_apply({key: table.guess for key, table in tables.items()}, columns)
    separators = options.separators if options else {}
    for table in tables.values():
        table.settle(separators)  # the roles are final: check rows and split cells by them
    return tables


def bundle_parse(
    *,
    judgments: NamedBytes,
    systems: NamedBytes | None = None,
    contexts: NamedBytes | None = None,
    references: NamedBytes | None = None,
    columns: list[MappedColumn] | None = None,
    options: ReadOptions | None = None,
) -> Bundle:
    """Parse the files given as (name, bytes), columns mapped as `columns` says where it says
    (a mapping naming an unknown role or column raises `ColumnMappingError`). The contexts,
    references and responses the judgments file holds in columns stand for the files not
    given; a file given is read instead of those columns."""
    options = options or ReadOptions()
    files = {"judgments": judgments, "systems": systems, "contexts": contexts}
    tables = _tables({**files, "references": references}, columns or [], options)
    read: dict[str, Read] = {
        key: READERS[key](table) for key, table in tables.items() if key != "judgments"
    }
    embedded = embedded_read(tables["judgments"], options.original)
    judged = judgments_read(tables["judgments"], frozenset(embedded.bad_lines))
    judged.problems = [*judged.problems, *embedded.problems]
    parts: dict[str, Read | None] = {
        "systems": embedded.outputs,
        "contexts": embedded.contexts,
        "references": embedded.references,
    }
    from_file = [key for key, part in parts.items() if part is not None and key not in read]
    for key in from_file:
        read[key] = parts[key]  # type: ignore[assignment]  # not None: filtered above
    return Bundle(
        judged,
        read.get("systems"),  # type: ignore[arg-type]
        read.get("contexts"),  # type: ignore[arg-type]
        read.get("references"),  # type: ignore[arg-type]
        tables,
        from_file,
    )


def judgments_preview(
    *,
    files: Mapping[str, NamedBytes | None],
    columns: list[MappedColumn] | None = None,
    options: ReadOptions | None = None,
) -> dict:
    """Each file's header, first rows (multi-valued cells split) and guessed role per column,
    how its multi-valued columns are split and why, and whether every guess is `sure`;
    `columns` and `options` as in `bundle_parse`. Reads nothing but the files."""
    return _preview(_tables(files, columns or [], options))


def bundle_check(bundle: Bundle) -> None:
    """Refuse a bundle some file of which was not read for its unsure columns."""
    if bundle.unsure:
        raise ColumnsUnsure(bundle.unsure, bundle.preview())
