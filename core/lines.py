"""What is wrong at which line of an uploaded file, and the one reader of an upload's lines.

Every importer (dataset files, mining corpora, human-evaluation files, system outputs) reports
a problem with its line — and its field or file when it has one — and collects every problem
instead of stopping at the first, so a user fixes a file in one round.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import IO, Any

from django.core.files import File

from core import strict_json

BOM = b"\xef\xbb\xbf"
MAX_REPORTED_PROBLEMS = 200


@dataclass(frozen=True)
class LineProblem:
    line: int  # from 1; 0 when the problem is the whole file's
    message: str
    field: str = ""  # e.g. "references[0].text"
    file: str = ""  # for uploads of several files
    level: str = "error"  # "warning": the line was read anyway, nothing was lost
    # Problems of one kind ("items have no references") are counted as one entry of a report
    # (`problems_counted`), each naming its subject (the item's id) or its line.
    kind: str = ""
    subject: str = ""

    def __str__(self) -> str:
        where = ", ".join(
            part
            for part in (self.file, f"line {self.line}" if self.line else "", self.field)
            if part
        )
        return f"{where}: {self.message}" if where else self.message

    def as_dict(self, *keys: str) -> dict[str, Any]:
        """The problem as JSON, with only `keys` (each caller's documented shape) if given."""
        every = {
            "file": self.file,
            "line": self.line,
            "field": self.field,
            "message": self.message,
            "level": self.level,
        }
        return {key: every[key] for key in keys} if keys else every


@dataclass
class LineProblems:
    """The problems of one file: the first `limit` in full, the rest counted in `more`;
    `bad_lines` counts the lines with at least one error."""

    file: str = ""
    limit: int = MAX_REPORTED_PROBLEMS
    problems: list[LineProblem] = field(default_factory=list)
    more: int = 0
    bad_lines: int = 0
    stopped_at: int = 0  # the line where reading gave up (`give_up`), or 0
    _last_bad: int = 0

    def add(
        self, line: int, message: str, field: str = "", *, level: str = "error", kind: str = ""
    ) -> None:
        if level == "error" and (line != self._last_bad or line == 0):
            self.bad_lines += 1
            self._last_bad = line
        if len(self.problems) < self.limit:
            self.problems.append(LineProblem(line, message, field, self.file, level, kind))
        else:
            self.more += 1

    def error(self, line: int, message: str, field: str = "") -> None:
        self.add(line, message, field)

    def warn(self, line: int, message: str, field: str = "") -> None:
        self.add(line, message, field, level="warning")

    def give_up(self, line: int, after: int) -> bool:
        """Whether reading should stop at `line`, `after` lines being wrong already (0: never):
        a file refused whole gains nothing from its millionth problem. If so, the report says
        where and why, past its limit, since the reader must learn why the count ends there."""
        if not after or self.bad_lines < after:
            return False
        message = f"reading stopped here: {self.bad_lines:,} lines were wrong already"
        self.problems.append(LineProblem(line, message, "", self.file))
        self.stopped_at = line
        return True

    def reported(self) -> list[LineProblem]:
        """Every kept problem, and one saying how many more were not kept."""
        if not self.more:
            return list(self.problems)
        return [
            *self.problems,
            LineProblem(0, f"{self.more} more problems not shown", "", self.file),
        ]


@dataclass(frozen=True)
class CountedProblem:
    """Like problems of one file and level as one entry: how many, and the first few lines and
    subjects (a report of 46 reference-less items is one line, not 46)."""

    # In the order of a report's JSON keys (as_dict).
    file: str
    line: int  # the first one's
    message: str  # the one problem's own message, or a summary naming the count and the first
    level: str
    count: int
    lines: list[int]
    subjects: list[str]

    def __str__(self) -> str:
        at_line = f"line {self.line}" if self.count == 1 and self.line else ""
        where = ", ".join(part for part in (self.file, at_line) if part)
        return f"{where}: {self.message}" if where else self.message

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _listed(values: list[Any], count: int, shown: int) -> str:
    text = ", ".join(str(v) for v in values)
    return f"{text}, … (first {shown})" if count > shown else text


def problems_counted(problems: Iterable[LineProblem], *, shown: int = 20) -> list[CountedProblem]:
    """`problems` with those of one file, level and kind (or, without a kind, one message)
    merged into one entry, in the order each first appears; a merged entry's message reads
    "46 items have no references: 101, 102, … (first 20)" (subjects) or "…: lines 3, 9, …"
    followed, when their messages differ, by the first one's (a JSON error says where)."""
    groups: dict[tuple[str, str, str], list[LineProblem]] = {}
    for problem in problems:
        key = (problem.file, problem.level, problem.kind or f"\0{problem.message}")
        groups.setdefault(key, []).append(problem)
    return [_counted(group, shown) for group in groups.values()]


def _counted(group: list[LineProblem], shown: int) -> CountedProblem:
    first, count = group[0], len(group)
    lines = [p.line for p in group if p.line][:shown]
    subjects = [p.subject for p in group if p.subject][:shown]
    if count == 1:
        message = first.message
    else:
        what = f"{count} {first.kind}" if first.kind else f"{first.message} ({count} times)"
        if subjects:
            message = f"{what}: {_listed(subjects, count, shown)}"
        elif lines:
            message = f"{what}: lines {_listed(lines, count, shown)}"
            if first.kind and any(p.message != first.message for p in group):
                message += f"; line {first.line}: {first.message}"  # what one of them says
        else:
            message = what
    return CountedProblem(first.file, first.line, message, first.level, count, lines, subjects)


def file_lines(handle: IO[bytes]) -> Iterator[bytes]:
    """The raw lines of an upload or a stored file, from its start, each ending at "\n" only,
    as editors and `wc -l` count them. Iterating a Django file object (an upload, a model's
    file) also ends a line at a lone "\r" — every later line was then named one too high, and a
    worker scored a stored submission's later lines one item late — and joins a long line's
    pieces again at each chunk (12.8 s for a 48 MB line, bench/hostile.py); the plain file
    object it wraps does neither."""
    raw: Any = handle
    while isinstance(raw, File):  # an upload, a model's file, a storage's file: unwrap
        raw = raw.file
    raw.seek(0)
    yield from raw


def _file_lines_from_the_first(raw_lines: Iterable[bytes]) -> Iterator[bytes]:
    """`raw_lines` without a byte-order mark, or, when the first "line" holds the whole file
    and its line ends are carriage returns alone (files saved by classic Mac OS tools and some
    spreadsheets), that file's lines. A stray "\r" inside a line of a "\n" file stays there."""
    iterator = iter(raw_lines)
    first = next(iterator, None)
    if first is None:
        return
    first = first.removeprefix(BOM)
    body = first[:-1] if first.endswith(b"\r") else first
    if first.endswith(b"\n") or b"\r" not in body:
        yield first
        yield from iterator
        return
    start = 0
    while (end := body.find(b"\r", start)) != -1:
        yield body[start:end]
        start = end + 1
    yield body[start:]


def read_lines(
    raw_lines: Iterable[bytes],
    problems: LineProblems,
    *,
    keep_bad: bool = False,
    latin1: bool = False,
    give_up_after: int = 0,
) -> Iterator[tuple[int, str]]:
    """(number from 1, text without its line end) of each line of an upload.

    A byte-order mark before the first line is dropped; a file whose lines end with "\r"
    alone is read at those. A line that is not UTF-8, or that holds a NUL byte (which no
    database text column stores), is an error in `problems`: the line is
    skipped, or given as "" with `keep_bad` (so that counts and numbers stay the file's). With
    `latin1`, a line that is not UTF-8 is read as Latin-1 instead, with a warning (files from
    the field, written by old tools). With `give_up_after`, reading stops, with an error saying
    so, once that many lines were wrong (whether here or in the caller): 16 million wrong lines
    took six minutes."""
    for number, raw in enumerate(_file_lines_from_the_first(raw_lines), start=1):
        if give_up_after and problems.give_up(number, give_up_after):
            return
        if raw == b"\n":  # nothing to check (a 48 MB dataset of blank lines: 16.6 s → 11.4 s)
            yield number, ""
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            where = f"byte {exc.start + 1} of the line"
            if latin1:
                message = f"not UTF-8 ({where}): read as Latin-1"
                problems.add(number, message, level="warning", kind="lines read as Latin-1")
                text = raw.decode("latin-1")
            else:
                problems.add(number, f"not valid UTF-8 ({where})", kind="lines not valid UTF-8")
                text = None
        if text is not None and "\x00" in text:
            message = f"contains a NUL byte (byte {raw.index(0) + 1} of the line)"
            problems.add(number, message, kind="lines with a NUL byte")
            text = None
        if text is not None:
            yield number, text.rstrip("\r\n")
        elif keep_bad:
            yield number, ""


def json_object_lines(
    lines: Iterable[tuple[int, str]], problems: LineProblems
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(number, object) of each line holding one JSON object; any other line is an error in
    `problems` (the JSON error names where it is) and is skipped."""
    for number, text in lines:
        try:
            obj = strict_json.loads(text)
        except strict_json.StrictJSONError as exc:
            problems.add(number, f"not valid JSON ({exc.describe()})", exc.path)
            continue
        if not isinstance(obj, dict):
            problems.add(number, "must be a JSON object")
            continue
        yield number, obj
