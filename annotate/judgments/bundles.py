"""The files of one human evaluation read together (no database): every file's column roles
guessed, the user's mapping applied across the files, each file read, and a preview of it all
for the user to confirm when a guess is unsure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from annotate.judgments.columns import MappedColumn, mapping_apply
from annotate.judgments.parsing import (
    READERS,
    Contexts,
    Judgments,
    Outputs,
    Read,
    References,
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


def _tables(
    files: Mapping[str, NamedBytes | None], columns: list[MappedColumn]
) -> dict[str, Table]:
    tables = {
        key: table_read(key, named[0], named[1])
        for key in BUNDLE_FILES
        if (named := files.get(key)) is not None
    }
    mapping_apply({key: table.guess for key, table in tables.items()}, columns)
    return tables


def bundle_parse(
    *,
    judgments: NamedBytes,
    systems: NamedBytes | None = None,
    contexts: NamedBytes | None = None,
    references: NamedBytes | None = None,
    columns: list[MappedColumn] | None = None,
) -> Bundle:
    """Parse the files given as (name, bytes), columns mapped as `columns` says where it says
    (a mapping naming an unknown role or column raises `ColumnMappingError`)."""
    files = {"judgments": judgments, "systems": systems, "contexts": contexts}
    tables = _tables({**files, "references": references}, columns or [])
    read = {key: READERS[key](table) for key, table in tables.items()}
    return Bundle(
        read["judgments"],  # type: ignore[arg-type]
        read.get("systems"),  # type: ignore[arg-type]
        read.get("contexts"),  # type: ignore[arg-type]
        read.get("references"),  # type: ignore[arg-type]
        tables,
    )


def judgments_preview(
    *, files: Mapping[str, NamedBytes | None], columns: list[MappedColumn] | None = None
) -> dict:
    """Each file's header, first rows and guessed role per column, and whether every guess is
    `sure`; `columns` as in `bundle_parse`. Reads nothing but the files."""
    return _preview(_tables(files, columns or []))


def bundle_check(bundle: Bundle) -> None:
    """Refuse a bundle some file of which was not read for its unsure columns."""
    if bundle.unsure:
        raise ColumnsUnsure(bundle.unsure, bundle.preview())
