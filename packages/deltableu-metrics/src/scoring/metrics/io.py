"""Readers for REFS.jsonl and HYPS files, with errors that name the file, line and item.

REFS.jsonl: one JSON object per line, in item order:
``{"id": "...", "refs": [{"text": "...", "weight": 0.6}, ...]}`` (``weight`` defaults to 1).
HYPS: plain text, one hypothesis per line in item order; or JSONL ``{"id": ..., "hyp": ...}``
matched by id (detected from the first line). ``-`` reads standard input. Files are streamed a
block of lines at a time (memory stays proportional to what is kept, not to the raw file). A
UTF-8 byte-order mark at the start of any input is dropped.
"""

from __future__ import annotations

import io
import json
import math
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from .base import MetricInputError, RefItem, WeightedRef
from .refset import RefItems, RefSet

try:  # optional: a faster JSON parser (pip install 'deltableu-metrics[fast]')
    import orjson as _ORJSON
except ImportError:  # pragma: no cover - exercised in the wheel test's plain environment
    _ORJSON = None  # type: ignore[assignment]


def _open_binary(source: str | Path | IO[bytes], name: str) -> tuple[IO[bytes], bool]:
    """The binary file of ``source`` ('-' is standard input), past a byte-order mark (see
    :func:`_past_bom`), and whether to close it."""
    if hasattr(source, "read"):
        return _past_bom(source), False  # type: ignore[arg-type]
    if str(source) == "-":
        return _past_bom(sys.stdin.buffer), False
    try:
        return _past_bom(Path(source).open("rb")), True
    except OSError as exc:
        raise MetricInputError(f"{name}: cannot open: {exc.strerror}") from exc


BOM = b"\xef\xbb\xbf"  # UTF-8's byte-order mark, as Windows editors write it


def _past_bom(fh: IO[bytes]) -> IO[bytes]:
    """``fh`` from after a byte-order mark at its start. Every reader (hypotheses, REFS.jsonl,
    plain text references, the JSONL sniffing) opens its input here, so all drop a BOM as the
    web app drops it from uploads (``core.lines.read_lines``): kept, it glued onto the first
    word, hid that a file is JSONL, or made REFS.jsonl bad JSON."""
    if fh.seekable():
        start = fh.tell()
        if fh.read(len(BOM)) != BOM:
            fh.seek(start)
        return fh
    head = fh.read(len(BOM))
    if head == BOM:
        return fh
    return io.BufferedReader(_Prefixed(head, fh))  # a pipe cannot seek back: put them in front


class _Prefixed(io.RawIOBase):
    """Bytes already read from a stream, then the rest of the stream."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        if self._head:
            data, self._head = self._head[:size], self._head[size:]
        else:
            data = getattr(self._rest, "read1", self._rest.read)(size)
        buffer[: len(data)] = data
        return len(data)


def _open_lines(source: str | Path | IO[bytes]) -> Iterator[tuple[int, str]]:
    """(line number, decoded line without its newline); invalid UTF-8 names the line."""
    name = "<stdin>" if str(source) == "-" else str(source)
    fh, close = _open_binary(source, name)
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


def read_refs_jsonl(source: str | Path | IO[bytes], *, name: str | None = None) -> RefItems:
    """Read and validate REFS.jsonl; errors name the line and item; blank lines are skipped.

    Streams the file a block of lines at a time (memory: the references kept, not the raw
    file), each block parsed by one call of orjson (or the standard library's C parser when
    orjson is not installed) and validated in bulk; a block with a fault is read again line
    by line for the message. Returns the items as a :class:`~.refset.RefItems` sequence;
    ``name`` (default: the path) starts error messages."""
    if name is None:
        name = "<stdin>" if str(source) == "-" else str(getattr(source, "name", source))
    out = _RefsBuilder(name)
    for block in _line_blocks(source, name):
        objs = _loads_block(block)
        if objs is None:  # some line is not valid JSON (or not UTF-8): find it
            objs = [_loads_line(line, f"{name}, line {number}") for number, line in block]
        out.add(objs, [number for number, _ in block])
    return out.finish()


_BLOCK_BYTES = 1 << 22  # lines read and parsed at once: some 4 MB
_STR = {str}
_NUMBER = {int, float}  # not bool: a weight of `true` is refused with a message


def _line_blocks(source: str | Path | IO[bytes], name: str) -> Iterator[list[tuple[int, bytes]]]:
    """Blocks of (line number, raw line) with blank lines left out."""
    fh, close = _open_binary(source, name)
    number = 0
    try:
        while lines := fh.readlines(_BLOCK_BYTES):
            block = []
            for raw in lines:
                number += 1
                if raw.strip():
                    block.append((number, raw))
            if block:
                yield block
    finally:
        if close:
            fh.close()


def _loads_block(block: list[tuple[int, bytes]]) -> list[Any] | None:
    """Every line of ``block`` parsed by one call, or None if one of them is not JSON."""
    text = b"[" + b",".join(raw for _, raw in block) + b"]"
    try:
        parsed = _ORJSON.loads(text) if _ORJSON is not None else json.loads(text)
    except ValueError:  # orjson.JSONDecodeError, json.JSONDecodeError, UnicodeDecodeError
        return None
    # A line such as `1, 2` parses as two values: the count no longer matches the lines.
    return parsed if isinstance(parsed, list) and len(parsed) == len(block) else None


def _loads_line(raw: bytes, where: str) -> Any:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MetricInputError(f"{where}: invalid UTF-8 ({exc.reason})") from exc
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise MetricInputError(f"{where}: bad JSON ({exc.msg}, column {exc.colno})") from exc


class _RefsBuilder:
    """Flat texts, weights and item pointers, checked as they come (see read_refs_jsonl)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.ids: list[str] = []
        self.texts: list[str] = []
        self.weights: list[float] = []
        self.ptr = [0]
        self.seen: dict[str, int] = {}

    def add(self, objs: list[Any], numbers: list[int]) -> None:
        first = len(self.ids)
        for obj, number in zip(objs, numbers, strict=True):
            if not self._add_fast(obj):
                item = parse_ref_item(obj, f"{self.name}, line {number}")  # raises if bad
                self.texts.extend(ref.text for ref in item.refs)
                self.weights.extend(ref.weight for ref in item.refs)
                self.ids.append(item.id)
                self.ptr.append(len(self.texts))
            item_id = self.ids[-1]
            if item_id in self.seen:
                raise MetricInputError(
                    f"{self.name}, line {number}: item {item_id!r} already on line "
                    f"{self.seen[item_id]}"
                )
            self.seen[item_id] = number
        self._check_weights(first, objs, numbers)

    def _add_fast(self, obj: Any) -> bool:
        """Add a well-formed item without building objects; False when anything is unusual
        (the caller then validates it with messages). Type checks run in C (``map(type, …)``)."""
        if type(obj) is not dict:
            return False
        item_id, refs = obj.get("id"), obj.get("refs")
        if type(item_id) is not str or not item_id or type(refs) is not list or not refs:
            return False
        try:
            texts = [ref["text"] for ref in refs]
            weights = [ref.get("weight", 1.0) for ref in refs]
        except (TypeError, KeyError, AttributeError):  # plain-string or malformed references
            return False
        if not set(map(type, texts)) <= _STR or not set(map(type, weights)) <= _NUMBER:
            return False
        self.texts.extend(texts)
        self.weights.extend(weights)
        self.ids.append(item_id)
        self.ptr.append(len(self.texts))
        return True

    def _check_weights(self, first: int, objs: list[Any], numbers: list[int]) -> None:
        lo, hi = self.ptr[first], self.ptr[-1]
        w = np.asarray(self.weights[lo:hi], dtype=np.float64)
        bad = ~(np.isfinite(w) & (np.abs(w) <= 1.0))
        if bad.any():
            ref = lo + int(np.argmax(bad))
            k = int(np.searchsorted(np.asarray(self.ptr[first:]), ref, side="right")) - 1
            parse_ref_item(objs[k], f"{self.name}, line {numbers[k]}")  # raises with the reason
            raise MetricInputError(f"{self.name}, line {numbers[k]}: bad weight")  # unreachable

    def finish(self) -> RefItems:
        if not self.ids:
            raise MetricInputError(f"{self.name}: no items")
        refset = RefSet(
            self.ids,
            self.texts,
            np.asarray(self.weights, dtype=np.float64),
            np.asarray(self.ptr, dtype=np.int64),
        )
        return RefItems(refset)


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
