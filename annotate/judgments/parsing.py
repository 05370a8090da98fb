"""Reading human-evaluation files as they come from the field (parsing only, no database).

Four layouts, after the ΔBLEU release: contexts (id, depth, context), references (id, ref1,
ref2, … — as many as the item has), system responses (system, id, response) and per-judge
judgments (judge, id, system, one or more criterion scores), as TSV, CSV or JSONL. Real files
have byte-order marks, stray quote characters inside unquoted fields and ragged rows; every
oddity becomes a `LineProblem` with its file and line, and a bad row is skipped, never fatal.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from core import strict_json
from core.lines import BOM, LineProblem, LineProblems, read_lines

CONTEXT_SEPARATORS = (" EOS ", " ||| ", "\t")
JUDGMENT_KEYS = ("judge", "id", "system")


@dataclass
class Parsed:
    problems: list[LineProblem] = field(default_factory=list)

    def error(self, file: str, line: int, message: str) -> None:
        self.problems.append(LineProblem(line, message, file=file))

    def warn(self, file: str, line: int, message: str) -> None:
        self.problems.append(LineProblem(line, message, file=file, level="warning"))


def _lines(data: bytes, name: str, parsed: Parsed) -> list[tuple[int, str]]:
    """Every line, numbered: one holding a NUL is left empty (an error: the row is skipped), one
    that is not UTF-8 is read as Latin-1 (a warning)."""
    if data.startswith(BOM):
        parsed.warn(name, 1, "byte-order mark removed")
    found = LineProblems(file=name)
    lines = list(read_lines(io.BytesIO(data), found, keep_bad=True, latin1=True))
    parsed.problems += found.reported()
    return lines


def _format_of(text: str, name: str) -> str:
    lower = name.lower()
    if lower.endswith((".jsonl", ".json")) or text.lstrip().startswith("{"):
        return "jsonl"
    first = text.split("\n", 1)[0]
    if lower.endswith(".csv") or ("\t" not in first and "," in first):
        return "csv"
    return "tsv"


def rows_of(data: bytes, name: str, parsed: Parsed) -> list[tuple[int, list[str] | dict]]:
    """(line number, fields or JSON object) of each non-empty line.

    TSV is split on tabs only, so quote characters are kept as written; CSV uses the csv
    module leniently (a quote inside an unquoted field is text)."""
    lines = _lines(data, name, parsed)
    text = "\n".join(line for _, line in lines)
    fmt = _format_of(text, name)
    out: list[tuple[int, list[str] | dict]] = []
    if fmt == "csv":  # a quoted field may span lines: the csv module reads the whole text
        reader = csv.reader(io.StringIO(text), strict=False, skipinitialspace=False)
        for fields in reader:
            if any(f.strip() for f in fields):
                out.append((reader.line_num, fields))
        return out
    for number, line in lines:
        if not line.strip():
            continue
        if fmt == "jsonl":
            try:
                obj = strict_json.loads(line)
            except strict_json.StrictJSONError as exc:
                parsed.error(name, number, f"not valid JSON ({exc.describe()})")
                continue
            if not isinstance(obj, dict):
                parsed.error(name, number, "expected a JSON object")
                continue
            out.append((number, obj))
        else:
            out.append((number, line.split("\t")))
    return out


def _is_header(fields: list[str], words: tuple[str, ...]) -> bool:
    lowered = {f.strip().lower() for f in fields}
    return sum(w in lowered for w in words) >= 2


def _cell(value: object) -> str:
    return str(value).strip() if value is not None else ""


@dataclass
class Contexts(Parsed):
    """id → (context turns, message): the last turn of the context is the message."""

    items: dict[str, tuple[list[str], str]] = field(default_factory=dict)


def _split_turns(context: str) -> list[str]:
    for sep in CONTEXT_SEPARATORS:
        if sep in context:
            return [t.strip() for t in context.split(sep) if t.strip()]
    return [context.strip()] if context.strip() else []


def parse_contexts(data: bytes, name: str = "contexts") -> Contexts:
    parsed = Contexts()
    for number, row in rows_of(data, name, parsed):
        if isinstance(row, dict):
            item_id, turns = _cell(row.get("id")), row.get("context") or []
            turns = turns if isinstance(turns, list) else _split_turns(str(turns))
            if row.get("message"):
                turns = [*turns, str(row["message"])]
        else:
            if number == 1 and _is_header(row, ("id", "depth", "context")):
                continue
            if len(row) < 2:
                parsed.error(name, number, f"expected id, depth, context; found {len(row)} field")
                continue
            item_id = row[0].strip()
            turns = _split_turns("\t".join(row[2:]) if len(row) > 2 else row[1])
        if not item_id or not turns:
            parsed.error(name, number, "an id and a non-empty context are needed")
            continue
        if item_id in parsed.items:
            parsed.warn(name, number, f"id {item_id!r} repeated: the first one is kept")
            continue
        parsed.items[item_id] = ([str(t) for t in turns[:-1]], str(turns[-1]))
    return parsed


@dataclass
class References(Parsed):
    items: dict[str, list[str]] = field(default_factory=dict)


def parse_references(data: bytes, name: str = "references") -> References:
    """id followed by any number of references (ragged rows are the norm here)."""
    parsed = References()
    for number, row in rows_of(data, name, parsed):
        if isinstance(row, dict):
            item_id = _cell(row.get("id"))
            refs = row.get("references") or []
            refs = [_cell(r.get("text") if isinstance(r, dict) else r) for r in refs]
        else:
            if number == 1 and _is_header(row, ("id", "reference1", "reference", "ref1")):
                continue
            item_id, refs = row[0].strip(), [r.strip() for r in row[1:]]
        refs = [r for r in refs if r]
        if not item_id:
            parsed.error(name, number, "the id is empty")
            continue
        if not refs:
            parsed.warn(name, number, f"item {item_id!r} has no references")
        parsed.items.setdefault(item_id, []).extend(refs)
    return parsed


@dataclass
class Outputs(Parsed):
    """system → {id: response} and where each system first appears."""

    by_system: dict[str, dict[str, str]] = field(default_factory=dict)


def parse_outputs(data: bytes, name: str = "systems") -> Outputs:
    parsed = Outputs()
    for number, row in rows_of(data, name, parsed):
        if isinstance(row, dict):
            system, item_id = _cell(row.get("system")), _cell(row.get("id"))
            response = _cell(row.get("response"))
        else:
            if number == 1 and _is_header(row, ("system", "id", "response")):
                continue
            if len(row) < 3:
                parsed.error(name, number, f"expected system, id, response; found {len(row)}")
                continue
            system, item_id = row[0].strip(), row[1].strip()
            response = "\t".join(row[2:]).strip()
            if len(row) > 3:
                parsed.warn(name, number, "more than 3 fields: the rest joined to the response")
        if not system or not item_id:
            parsed.error(name, number, "system and id are needed")
            continue
        outputs = parsed.by_system.setdefault(system, {})
        if item_id in outputs:
            parsed.warn(name, number, f"second response of {system!r} for {item_id!r} ignored")
            continue
        outputs[item_id] = response
    return parsed


@dataclass(frozen=True)
class JudgmentRow:
    line: int
    judge: str
    item: str
    system: str
    scores: dict[str, float]


@dataclass
class Judgments(Parsed):
    rows: list[JudgmentRow] = field(default_factory=list)
    criteria: list[str] = field(default_factory=list)


def _scores(values: list[str], names: list[str], parsed: Judgments, name: str, line: int):
    scores = {}
    for criterion, value in zip(names, values, strict=False):
        text = value.strip().strip('"').strip()
        if not text:
            continue
        try:
            scores[criterion] = float(text)
        except ValueError:
            parsed.error(name, line, f"{criterion}: {value!r} is not a number")
            return None
    return scores


def parse_judgments(data: bytes, name: str = "judgments") -> Judgments:
    """Per-judge rows: judge, id, system, then one score per criterion (header names them;
    without a header they are score1, score2, …). JSONL: {"judge", "id", "system",
    "scores": {criterion: value}}."""
    parsed = Judgments()
    header: list[str] | None = None
    for number, row in rows_of(data, name, parsed):
        if isinstance(row, dict):
            keys = [_cell(row.get(k)) for k in JUDGMENT_KEYS]
            raw = row.get("scores")
            if not isinstance(raw, dict) or not raw:
                parsed.error(name, number, "scores: expected an object of criterion: number")
                continue
            names = [str(k) for k in raw]
            scores = _scores([str(v) for v in raw.values()], names, parsed, name, number)
        else:
            if header is None and not parsed.rows and _is_header(row, JUDGMENT_KEYS):
                header = [h.strip() or f"score{k}" for k, h in enumerate(row[3:], start=1)]
                continue
            if len(row) < 4:
                parsed.error(
                    name, number, f"expected judge, id, system and a score; found {len(row)} fields"
                )
                continue
            names = header or [f"score{k}" for k in range(1, len(row) - 2)]
            if header is not None and len(row) - 3 != len(header):
                parsed.warn(name, number, f"{len(row) - 3} scores for {len(header)} criteria")
            keys = [f.strip() for f in row[:3]]
            scores = _scores(row[3:], names, parsed, name, number)
        if scores is None:
            continue
        if not all(keys) or not scores:
            parsed.error(name, number, "judge, id, system and a score are needed")
            continue
        for criterion in scores:
            if criterion not in parsed.criteria:
                parsed.criteria.append(criterion)
        parsed.rows.append(JudgmentRow(number, keys[0], keys[1], keys[2], scores))
    return parsed
