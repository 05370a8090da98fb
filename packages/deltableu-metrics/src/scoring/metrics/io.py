"""Readers for REFS.jsonl and HYPS files, with errors that name the file, line and item.

REFS.jsonl: one JSON object per line, in item order:
``{"id": "...", "refs": [{"text": "...", "weight": 0.6}, ...]}`` (``weight`` defaults to 1).
HYPS: plain text, one hypothesis per line in item order; or JSONL ``{"id": ..., "hyp": ...}``
matched by id (detected from the first line). ``-`` reads standard input. Files are read line by
line (memory stays proportional to what is kept, not to the raw file).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from .base import MetricInputError, RefItem, WeightedRef


def _open_lines(source: str | Path | IO[bytes]) -> Iterator[tuple[int, str]]:
    """(line number, decoded line without its newline); invalid UTF-8 names the line."""
    name = "<stdin>" if str(source) == "-" else str(source)
    if hasattr(source, "read"):
        fh: IO[bytes] = source  # type: ignore[assignment]
        close = False
    elif str(source) == "-":
        fh, close = sys.stdin.buffer, False
    else:
        try:
            fh, close = Path(source).open("rb"), True  # noqa: SIM115 (closed in finally)
        except OSError as exc:
            raise MetricInputError(f"{name}: cannot open: {exc.strerror}") from exc
    try:
        for number, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise MetricInputError(
                    f"{name}, line {number}: invalid UTF-8 ({exc.reason})"
                ) from exc
            yield number, line.rstrip("\r\n") if line.endswith("\n") else line
    finally:
        if close:
            fh.close()


def _weight(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MetricInputError(f"{where}: weight {value!r} is not a number")
    if not math.isfinite(value) or not -1.0 <= value <= 1.0:
        raise MetricInputError(f"{where}: weight {value!r} is outside [-1, 1]")
    return float(value)


def parse_ref_item(obj: Any, where: str) -> RefItem:
    """One REFS.jsonl object → :class:`RefItem` (``where`` prefixes error messages)."""
    if not isinstance(obj, dict):
        raise MetricInputError(f"{where}: expected a JSON object")
    item_id = obj.get("id")
    if not isinstance(item_id, str | int) or isinstance(item_id, bool) or item_id == "":
        raise MetricInputError(f'{where}: missing or invalid "id"')
    where = f"{where} (item {str(item_id)!r})"
    refs = obj.get("refs")
    if not isinstance(refs, list) or not refs:
        raise MetricInputError(f'{where}: "refs" must be a non-empty list')
    out = []
    for k, ref in enumerate(refs, start=1):
        if isinstance(ref, str):
            ref = {"text": ref}
        if not isinstance(ref, dict) or not isinstance(ref.get("text"), str):
            raise MetricInputError(f'{where}, reference {k}: needs a string "text"')
        out.append(
            WeightedRef(ref["text"], _weight(ref.get("weight", 1.0), f"{where}, reference {k}"))
        )
    return RefItem(str(item_id), tuple(out))


def read_refs_jsonl(source: str | Path | IO[bytes]) -> list[RefItem]:
    """Read and validate REFS.jsonl; errors name the line and item; blank lines are skipped."""
    name = "<stdin>" if str(source) == "-" else str(getattr(source, "name", source))
    items: list[RefItem] = []
    seen: dict[str, int] = {}
    for number, line in _open_lines(source):
        if not line.strip():
            continue
        where = f"{name}, line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MetricInputError(f"{where}: bad JSON ({exc.msg}, column {exc.colno})") from exc
        item = parse_ref_item(obj, where)
        if item.id in seen:
            raise MetricInputError(f"{where}: item {item.id!r} already on line {seen[item.id]}")
        seen[item.id] = number
        items.append(item)
    if not items:
        raise MetricInputError(f"{name}: no items")
    return items


def _jsonl_hyp(line: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) and "hyp" in obj else None


def read_hyps(source: str | Path | IO[bytes], item_ids: Sequence[str]) -> list[str]:
    """Hypotheses in item order, from plain text or JSONL matched by id (see module doc)."""
    name = "<stdin>" if str(source) == "-" else str(getattr(source, "name", source))
    lines = list(_open_lines(source))
    if lines and _jsonl_hyp(lines[0][1]) is not None:
        return _hyps_by_id(lines, item_ids, name)
    if len(lines) != len(item_ids):
        raise MetricInputError(
            f"{name}: {len(lines)} hypothesis lines for {len(item_ids)} items (line count mismatch)"
        )
    return [line for _, line in lines]


def _hyps_by_id(lines: list[tuple[int, str]], item_ids: Sequence[str], name: str) -> list[str]:
    position = {iid: k for k, iid in enumerate(item_ids)}
    out: list[str | None] = [None] * len(item_ids)
    for number, line in lines:
        if not line.strip():
            continue
        obj = _jsonl_hyp(line)
        where = f"{name}, line {number}"
        if obj is None:
            raise MetricInputError(f'{where}: bad JSON or no "hyp" field')
        iid, hyp = str(obj.get("id")), obj["hyp"]
        if not isinstance(hyp, str):
            raise MetricInputError(f'{where}: "hyp" must be a string')
        if iid not in position:
            raise MetricInputError(f"{where}: unknown id {iid!r}")
        if out[position[iid]] is not None:
            raise MetricInputError(f"{where}: id {iid!r} given twice")
        out[position[iid]] = hyp
    missing = [iid for iid, h in zip(item_ids, out, strict=True) if h is None]
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise MetricInputError(
            f"{name}: no hypothesis for item {', '.join(map(repr, missing[:5]))}{more}"
        )
    return [h for h in out if h is not None]
