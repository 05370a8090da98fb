"""Checking an uploaded system output before anything is queued (no database access).

Two layouts: plain text, one hypothesis a line in the leaderboard's item order; or JSONL, one
`{"id": …, "hyp": …}` a line, matched by id. Every problem is collected with its line, so a
participant fixes the file in one round. A byte-order mark is tolerated; NUL bytes are not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain

from core import strict_json
from core.lines import LineProblem, LineProblems, read_lines

MAX_PROBLEMS = 100
# A file is accepted whole or not at all: past this many wrong lines, reading stops (4 million
# lines of wrong JSON took 22 s to list before).
MAX_BAD_LINES = 1_000


class UploadRejected(Exception):
    def __init__(self, problems: list[LineProblem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems[:5]))


def size_text(n_bytes: int) -> str:
    """A size as people read it: "60 MB", "1.5 MB", "800 KB"."""
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if n_bytes >= scale:
            value = n_bytes / scale
            return f"{value:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n_bytes} bytes"


def upload_too_large(size: int, limit: int) -> str:
    """The refusal of a file over a board's limit, naming the limit (page, API and client)."""
    return f"the file is {size_text(size)}; this leaderboard accepts files up to {size_text(limit)}"


def _texts(raw_lines: Iterable[bytes], problems: LineProblems) -> tuple[list[str], Iterator[str]]:
    """The lines up to the first non-blank one (which tells the layout), and the rest, read
    as they are consumed: a JSONL file is checked line by line, and gives up early."""
    # A bad line stays as "": the plain layout matches lines to items by position.
    lines = read_lines(raw_lines, problems, keep_bad=True, give_up_after=MAX_BAD_LINES)
    head: list[str] = []
    for _, text in lines:
        head.append(text)
        if text.strip():
            break
    return head, (text for _, text in lines)


def _looks_like_jsonl(head: list[str]) -> bool:
    first = head[-1] if head else ""
    return first.lstrip().startswith("{") and '"hyp"' in first


def _by_id(texts: Iterable[str], item_ids: Sequence[str], problems: LineProblems) -> list[str]:
    known = set(item_ids)
    found: dict[str, tuple[int, str]] = {}
    for number, text in enumerate(texts, start=1):
        if problems.give_up(number, MAX_BAD_LINES):
            return []
        if not text.strip():
            continue
        try:
            obj = strict_json.loads(text)
        except strict_json.StrictJSONError as exc:
            problems.error(number, f"not valid JSON ({exc.describe()})")
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("hyp"), str):
            problems.error(number, 'needs an object with a string "hyp"')
            continue
        item_id = str(obj.get("id", ""))
        if item_id not in known:
            problems.error(number, f"unknown item id {item_id!r}")
        elif item_id in found:
            problems.error(number, f"item {item_id!r} already given on line {found[item_id][0]}")
        else:
            found[item_id] = (number, obj["hyp"])
    if problems.stopped_at:  # which items are missing is unknown
        return []
    missing = [i for i in item_ids if i not in found]
    if missing:
        shown = ", ".join(repr(i) for i in missing[:10])
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        problems.error(0, f"{len(missing)} items have no hypothesis: {shown}{more}")
    return [found[i][1] if i in found else "" for i in item_ids]


def _plain(texts: list[str], n_items: int, problems: LineProblems) -> list[str]:
    if problems.stopped_at:  # the line count is unknown
        return []
    if texts and texts[-1] == "" and len(texts) == n_items + 1:
        texts = texts[:-1]  # a trailing empty line after the final newline
    if len(texts) != n_items:
        problems.error(0, f"the file has {len(texts)} lines; the leaderboard has {n_items} items")
    return texts


def parse_submission(
    raw_lines: Iterable[bytes], item_ids: Sequence[str], fmt: str = ""
) -> tuple[list[str], str]:
    """The hypotheses in item order and the layout found; raise UploadRejected otherwise."""
    problems = LineProblems(limit=MAX_PROBLEMS)
    head, rest = _texts(raw_lines, problems)
    layout = fmt or ("jsonl" if _looks_like_jsonl(head) else "text")
    if layout == "jsonl":
        hyps = _by_id(chain(head, rest), item_ids, problems)
    else:
        hyps = _plain([*head, *rest], len(item_ids), problems)
    if not head:
        problems.error(0, "the file is empty")
    if problems.problems:
        raise UploadRejected(problems.reported())
    return hyps, layout


def submission_slice(
    raw_lines: Iterable[bytes], item_ids: Sequence[str], start: int, stop: int, fmt: str
) -> list[str]:
    """Hypotheses of items ``start:stop`` exactly as :func:`parse_submission` gives them for a
    file it accepted, keeping only those lines in memory (a chunk of a million-line file).

    ``fmt`` is the layout found at upload ("text" or "jsonl"). A file that no longer matches
    (it was checked at upload) raises :class:`UploadRejected`.
    """
    problems = LineProblems(limit=MAX_PROBLEMS)
    lines = read_lines(raw_lines, problems, keep_bad=True)
    if fmt == "jsonl":
        wanted = {item_id: k for k, item_id in enumerate(item_ids[start:stop])}
        found = [""] * (stop - start)
        for _, text in lines:
            if not text.strip():
                continue
            obj = strict_json.loads(text)
            k = wanted.get(str(obj.get("id", ""))) if isinstance(obj, dict) else None
            if k is not None:
                found[k] = obj["hyp"]
        return _unchanged(found, problems)
    if fmt != "text":
        raise ValueError(f"unknown submission layout {fmt!r}")
    hyps: list[str] = []
    if stop > start:
        for number, text in lines:
            if number > start:
                hyps.append(text)
            if number == stop:
                break  # the rest of the file is never read
    if len(hyps) != stop - start:
        problems.error(0, f"the file has fewer than {stop} lines")
    return _unchanged(hyps, problems)


def _unchanged(hyps: list[str], problems: LineProblems) -> list[str]:
    if problems.problems:  # the file changed since it was accepted
        raise UploadRejected(problems.problems)
    return hyps
