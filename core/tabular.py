"""The one CSV/TSV writer of every export, safe to open in a spreadsheet, and the CSV reader of
uploads.

A cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is run as a formula by
spreadsheet programs (OWASP, "CSV injection"): a crowd id such as `=HYPERLINK(…)` would become a
link in the owner's spreadsheet. Such a cell is written with a leading `'`, which spreadsheets
show as text. Numbers are left as they are (a weight of -0.5 must stay a number).

The escape is reversible, so a file this product exported imports back unchanged: a quote is
added when the text, after any leading quotes, begins with a trigger character, and `restore`
removes exactly one such quote. A value that really begins with `'=` is written `''=` and read
back as `'=`.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")

# The csv module refuses a cell over 128 KiB with an exception. Uploads are bounded in bytes
# before they are read, and other formats take a long cell (a conversation's whole context), so
# CSV does too: the limit is lifted once, for every reader.
csv.field_size_limit(2**31 - 1)


def _needs_quote(text: str) -> bool:
    return text.lstrip("'")[:1] in TRIGGERS and text.lstrip("'") != ""


def neutralise(value: Any) -> Any:
    """The value as a cell: numbers kept, None empty, booleans lower-case, risky text quoted."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return value
    text = str(value)
    if _NUMBER.fullmatch(text) or not _needs_quote(text):
        return text
    return "'" + text


def restore(cell: str) -> str:
    """Undo `neutralise` on a cell read back from one of our exports."""
    if cell.startswith("'") and _needs_quote(cell[1:]) and not _NUMBER.fullmatch(cell[1:]):
        return cell[1:]
    return cell


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]], newline: str = "\n") -> str:
    """A whole CSV document."""
    return "".join(csv_lines(header, rows, newline))


def csv_lines(
    header: Sequence[str] | None, rows: Iterable[Sequence[Any]], newline: str = "\n"
) -> Iterator[str]:
    """CSV one line at a time (for streaming responses); an empty row stays an empty line."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=newline)

    def line(values: Sequence[Any]) -> str:
        writer.writerow([neutralise(v) for v in values])
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    if header is not None:
        yield line(header)
    for row in rows:
        yield line(row)


def tsv_cell(value: Any) -> str:
    """A TSV cell: tabs and line breaks would break the row, so they become spaces; floats are
    written with repr (exact round trip); risky text is quoted as in CSV."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        value = value.replace("\t", " ").replace("\r", " ").replace("\n", " ")
    return str(neutralise(value))


def tsv_bytes(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """A whole TSV file, UTF-8, a header first, "\\n" line ends."""
    lines = ["\t".join(header)] + ["\t".join(tsv_cell(v) for v in row) for row in rows]
    return ("\n".join(lines) + "\n").encode()


class CsvLineError(ValueError):
    """A line the csv module cannot read, in words its author can act on."""

    def __init__(self, exc: csv.Error) -> None:
        if "new-line character" in str(exc):
            super().__init__("a carriage return (\\r) inside an unquoted cell: quote the cell")
        else:
            super().__init__(f"not readable as CSV ({exc})")


def csv_cells(line: str, delimiter: str = ",") -> list[str]:
    """One line's cells, quotes honoured; raises `CsvLineError`."""
    try:
        return next(csv.reader([line], delimiter=delimiter))
    except csv.Error as exc:
        raise CsvLineError(exc) from None


def csv_records(
    text: str, unreadable: Callable[[int, str], None]
) -> Iterator[tuple[int, list[str]]]:
    """(line number at its end, cells) of each record of a CSV text, where a quoted cell may
    span lines. A record the csv module cannot read goes to `unreadable(line, message)`, and
    reading goes on at the next line."""
    reader = csv.reader(io.StringIO(text), strict=False, skipinitialspace=False)
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            unreadable(reader.line_num, str(CsvLineError(exc)))
        else:
            yield reader.line_num, cells
