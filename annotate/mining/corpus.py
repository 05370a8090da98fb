"""Streaming a corpus of (context, message, response) triples out of a JSONL or TSV file.

JSONL, one triple a line: `{"context": ["turn", ...], "message": "...", "response": "...",
"conversation": "id"}`; `context` (a list, or one string with turns joined by " ||| ") and
`conversation` are optional, other keys are ignored (corpora carry scores, sources, dates...).

TSV: `context`, `message`, `response` and an optional `conversation` column, with a header
naming them, or with no header and exactly the three columns in that order.

Either may be gzip-compressed (recognised by its first bytes, whatever the file is called). The
file is read line by line through `core.bounded`: a 29M-triple corpus never sits in memory, and
a line over UPLOAD_MAX_LINE_BYTES, a ratio over ARCHIVE_MAX_RATIO or a total over
CORPUS_MAX_INFLATED_BYTES stops the reading with LimitExceeded. Bad rows are reported by line,
as the dataset importer does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from annotate.datasets.formats import CONTEXT_SEPARATOR
from core.bounded import Limits, lines, open_maybe_gzip
from core.lines import LineProblems, json_object_lines, read_lines

FORMATS = ("jsonl", "tsv")
TSV_COLUMNS = ("context", "message", "response", "conversation")
TSV_HEADERLESS = ("context", "message", "response")
MAX_TEXT_LENGTH = 5000  # characters; longer "turns" are documents, not chat


@dataclass(frozen=True)
class Triple:
    line: int
    context: list[str]
    message: str
    response: str
    conversation: str = ""


def format_for(filename: str) -> str:
    """The corpus format its file name tells ("jsonl" or "tsv"), or "" when it tells none."""
    name = filename.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".json", ".ndjson")):
        return "jsonl"
    if name.endswith((".tsv", ".tab", ".txt")):
        return "tsv"
    return ""


def open_binary_lines(raw: IO[bytes]) -> Iterator[bytes]:
    """The file's lines (bytes, newline kept), inflated on the fly when it is gzip, bounded.

    `raw` must be seekable (uploads and storage files are): its first bytes are peeked at.
    Only "\n" ends a line — a stray "\r" inside a chat turn does not split it.
    """
    return lines(open_maybe_gzip(raw, label="The corpus", limits=Limits.for_corpora()))


def _text(value: Any, line: int, name: str, problems: LineProblems) -> str | None:
    if not isinstance(value, str) or not value.strip():
        problems.add(line, "must be a non-empty string", name)
        return None
    if len(value) > MAX_TEXT_LENGTH:
        problems.add(line, f"is longer than {MAX_TEXT_LENGTH} characters", name)
        return None
    return value


def _context(value: Any, line: int, problems: LineProblems) -> list[str] | None:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return value.split(CONTEXT_SEPARATOR)
    if isinstance(value, list) and all(isinstance(turn, str) for turn in value):
        return value
    problems.add(line, "must be a list of strings", "context")
    return None


def _triple(line: int, row: dict[str, Any], problems: LineProblems) -> Triple | None:
    context = _context(row.get("context"), line, problems)
    message = _text(row.get("message"), line, "message", problems)
    response = _text(row.get("response"), line, "response", problems)
    conversation = row.get("conversation")
    if conversation is not None and not isinstance(conversation, str | int):
        problems.add(line, "must be a string or a number", "conversation")
        return None
    if context is None or message is None or response is None:
        return None
    name = "" if conversation is None else str(conversation)
    return Triple(line, context, message, response, name)


def _jsonl_rows(lines: Iterator[tuple[int, str]], problems: LineProblems) -> Iterator[Triple]:
    for line, row in json_object_lines(lines, problems):
        triple = _triple(line, row, problems)
        if triple is not None:
            yield triple


def _tsv_header(cells: list[str]) -> tuple[str, ...] | None:
    """The header's column names, or None when the first line is already a row."""
    if set(cells) <= set(TSV_COLUMNS) and {"message", "response"} <= set(cells):
        return tuple(cells)
    return None


def _tsv_rows(lines: Iterator[tuple[int, str]], problems: LineProblems) -> Iterator[Triple]:
    header: tuple[str, ...] | None = None
    for line, text in lines:
        cells = text.split("\t")
        if header is None:
            header = _tsv_header(cells)
            if header is not None:
                continue
            header = TSV_HEADERLESS
        if len(cells) != len(header):
            problems.add(line, f"has {len(cells)} columns, expected {len(header)}")
            continue
        triple = _triple(line, dict(zip(header, cells, strict=True)), problems)
        if triple is not None:
            yield triple


def read_triples(raw: IO[bytes], fmt: str, problems: LineProblems) -> Iterator[Triple]:
    """Yield the good triples of a corpus file in order; bad rows go to `problems`."""
    if fmt not in FORMATS:
        raise ValueError(f"Unknown corpus format {fmt!r}; use jsonl or tsv.")
    lines = (
        (line, text) for line, text in read_lines(open_binary_lines(raw), problems) if text.strip()
    )
    rows = _jsonl_rows if fmt == "jsonl" else _tsv_rows
    yield from rows(lines, problems)
