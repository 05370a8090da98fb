"""Reading and writing dataset files (JSONL and TSV), with no database access.

JSONL, one conversation a line (the canonical form, which `item_to_json` writes back, with
provenance keys sorted):
    {"id": "c1", "split": "dev", "context": ["turn", ...], "message": "...",
     "references": [{"text": "...", "origin": "original", "provenance": {}}, ...]}
`split` defaults to "dev", `context` to [], `origin` to "original", `provenance` to {}.

TSV, one reference a row, with a header naming the columns: `id`, `message`, `reference`
are required; `split`, `context` (turns joined by " ||| "), `origin` and `provenance` (a JSON
object) are optional. Rows of one item must agree on split, context and message.

Parsers collect every problem with its line and field instead of stopping at the first, so
a user fixes a file in one round.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from annotate.datasets.models import Origin, SplitName
from core import strict_json
from core.lines import LineProblem, LineProblems, json_object_lines, read_lines
from core.tabular import restore

CONTEXT_SEPARATOR = " ||| "
MAX_ID_LENGTH = 200
MAX_BAD_LINES = 1_000  # a file is imported whole or not at all: past this, reading stops
JSONL_KEYS = ("id", "split", "context", "message", "references")
REFERENCE_KEYS = ("text", "origin", "provenance")
TSV_REQUIRED = ("id", "message", "reference")
TSV_OPTIONAL = ("split", "context", "origin", "provenance")


@dataclass
class ReferenceRecord:
    text: str
    origin: str = Origin.ORIGINAL.value
    provenance: dict[str, Any] = field(default_factory=dict)


@dataclass
class ItemRecord:
    line: int
    external_id: str
    split: str
    context: list[str]
    message: str
    references: list[ReferenceRecord] = field(default_factory=list)


class FileProblems(Exception):
    """The file cannot be imported; `problems` says every place that is wrong."""

    def __init__(self, problems: list[LineProblem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems[:5]))


def _raise_if_any(problems: LineProblems) -> None:
    if problems.problems:
        raise FileProblems(problems.reported())


def _check_text(value: Any, line: int, name: str, problems: LineProblems) -> str | None:
    if not isinstance(value, str) or not value.strip():
        problems.add(line, "must be a non-empty string", name)
        return None
    return value


def _check_id(value: Any, line: int, name: str, problems: LineProblems) -> str | None:
    text = _check_text(value, line, name, problems)
    if text is not None and len(text) > MAX_ID_LENGTH:
        problems.add(line, f"is longer than {MAX_ID_LENGTH} characters", name)
        return None
    return text


def _check_split(value: Any, line: int, problems: LineProblems) -> str | None:
    if value not in SplitName.values:
        problems.add(line, f"must be one of {', '.join(SplitName.values)}, not {value!r}", "split")
        return None
    return str(value)


def _check_origin(value: Any, line: int, name: str, problems: LineProblems) -> str | None:
    if value not in Origin.values:
        problems.add(line, f"must be one of {', '.join(Origin.values)}, not {value!r}", name)
        return None
    return str(value)


def _check_context(value: Any, line: int, problems: LineProblems) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(turn, str) for turn in value):
        problems.add(line, "must be a list of strings", "context")
        return None
    return value


def _parse_reference(value: Any, line: int, index: int, problems: LineProblems):
    where = f"references[{index}]"
    if not isinstance(value, dict):
        problems.add(line, "must be an object with a text", where)
        return None
    for key in value.keys() - set(REFERENCE_KEYS):
        problems.add(line, "is not a known field", f"{where}.{key}")
    text = _check_text(value.get("text"), line, f"{where}.text", problems)
    origin = _check_origin(value.get("origin", "original"), line, f"{where}.origin", problems)
    provenance = value.get("provenance", {})
    if not isinstance(provenance, dict):
        problems.add(line, "must be an object", f"{where}.provenance")
    if text is None or origin is None or not isinstance(provenance, dict):
        return None
    return ReferenceRecord(text=text, origin=origin, provenance=provenance)


def _parse_json_object(obj: dict[str, Any], line: int, problems: LineProblems) -> ItemRecord | None:
    for key in obj.keys() - set(JSONL_KEYS):
        problems.add(line, "is not a known field", key)
    external_id = _check_id(obj.get("id"), line, "id", problems)
    split = _check_split(obj.get("split", "dev"), line, problems)
    context = _check_context(obj.get("context", []), line, problems)
    message = _check_text(obj.get("message"), line, "message", problems)
    raw_refs = obj.get("references")
    if not isinstance(raw_refs, list) or not raw_refs:
        problems.add(line, "must be a non-empty list", "references")
        return None
    refs = [_parse_reference(ref, line, i, problems) for i, ref in enumerate(raw_refs)]
    if None in (external_id, split, context, message) or None in refs:
        return None
    return ItemRecord(line, external_id, split, context, message, refs)  # type: ignore[arg-type]


def parse_jsonl(raw_lines: Iterable[bytes]) -> list[ItemRecord]:
    """Parse a JSONL dataset file; raise FileProblems naming every bad line and field."""
    problems = LineProblems()
    records: list[ItemRecord] = []
    nonblank = (
        (line, text)
        for line, text in read_lines(raw_lines, problems, give_up_after=MAX_BAD_LINES)
        if text.strip()
    )
    for line, obj in json_object_lines(nonblank, problems):
        record = _parse_json_object(obj, line, problems)
        if record is not None:
            records.append(record)
    _check_unique_ids(records, problems)
    if not records and not problems.problems:
        problems.add(0, "the file holds no items")
    _raise_if_any(problems)
    return records


def _check_unique_ids(records: list[ItemRecord], problems: LineProblems) -> None:
    first_line: dict[tuple[str, str], int] = {}
    for record in records:
        key = (record.split, record.external_id)
        if key in first_line:
            problems.add(
                record.line, f"{record.external_id!r} already used on line {first_line[key]}", "id"
            )
        else:
            first_line[key] = record.line


def _tsv_header(line: int, cells: list[str], problems: LineProblems) -> list[str] | None:
    unknown = [c for c in cells if c not in TSV_REQUIRED + TSV_OPTIONAL]
    missing = [c for c in TSV_REQUIRED if c not in cells]
    for name in unknown:
        problems.add(line, "is not a known column", name)
    for name in missing:
        problems.add(line, "required column is missing from the header", name)
    if len(set(cells)) != len(cells):
        problems.add(line, "a column name appears twice in the header")
    return None if unknown or missing or len(set(cells)) != len(cells) else cells


def _tsv_provenance(cell: str, line: int, problems: LineProblems) -> dict[str, Any] | None:
    if not cell:
        return {}
    try:
        value = strict_json.loads(cell)
    except strict_json.StrictJSONError:
        value = None
    if not isinstance(value, dict):
        problems.add(line, "must be a JSON object", "provenance")
        return None
    return value


def _tsv_row(row: dict[str, str], line: int, problems: LineProblems) -> ItemRecord | None:
    external_id = _check_id(row["id"], line, "id", problems)
    split = _check_split(row.get("split") or "dev", line, problems)
    context = row["context"].split(CONTEXT_SEPARATOR) if row.get("context") else []
    message = _check_text(row["message"], line, "message", problems)
    text = _check_text(row["reference"], line, "reference", problems)
    origin = _check_origin(row.get("origin") or "original", line, "origin", problems)
    provenance = _tsv_provenance(row.get("provenance", ""), line, problems)
    if None in (external_id, split, message, text, origin, provenance):
        return None
    reference = ReferenceRecord(text=text, origin=origin, provenance=provenance)  # type: ignore[arg-type]
    return ItemRecord(line, external_id, split, context, message, [reference])  # type: ignore[arg-type]


def _merge_tsv_row(
    items: dict[tuple[str, str], ItemRecord], row: ItemRecord, problems: LineProblems
):
    key = (row.split, row.external_id)
    known = items.get(key)
    if known is None:
        items[key] = row
        return
    for name in ("context", "message"):
        if getattr(known, name) != getattr(row, name):
            problems.add(row.line, f"differs from line {known.line} of the same item", name)
    known.references.extend(row.references)


def parse_tsv(raw_lines: Iterable[bytes]) -> list[ItemRecord]:
    """Parse a TSV dataset file (one reference a row); raise FileProblems naming each problem."""
    problems = LineProblems()
    header: list[str] | None = None
    items: dict[tuple[str, str], ItemRecord] = {}
    for line, text in read_lines(raw_lines, problems, give_up_after=MAX_BAD_LINES):
        if not text.strip():
            continue
        # Cells of our own exports come back without their formula guard (core.tabular).
        cells = [restore(c) for c in text.split("\t")]
        if header is None:
            header = _tsv_header(line, cells, problems) or []
            if not header:
                break
            continue
        if len(cells) != len(header):
            problems.add(line, f"has {len(cells)} columns, the header has {len(header)}")
            continue
        row = _tsv_row(dict(zip(header, cells, strict=True)), line, problems)
        if row is not None:
            _merge_tsv_row(items, row, problems)
    if header is not None and not items and not problems.problems:
        problems.add(0, "the file holds no rows after the header")
    if header is None and not problems.problems:
        problems.add(0, "the file is empty")
    _raise_if_any(problems)
    return list(items.values())


def _sorted_keys(value: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(value, sort_keys=True))


def item_to_json(
    *, external_id: str, split: str, context: list[str], message: str, references: list[dict]
) -> str:
    """One canonical JSONL line (no newline) for an item and its references.

    Provenance keys are sorted at every depth: PostgreSQL's jsonb keeps no key order, so a
    sorted order is the only one that every database gives back the same.
    """
    ordered = {
        "id": external_id,
        "split": split,
        "context": context,
        "message": message,
        "references": [
            {"text": r["text"], "origin": r["origin"], "provenance": _sorted_keys(r["provenance"])}
            for r in references
        ],
    }
    return json.dumps(ordered, ensure_ascii=False)
