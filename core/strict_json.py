"""Strict JSON for everything that arrives from outside: bodies, JSONL lines, manifests.

Python's `json` accepts what JSON does not (NaN, Infinity, numbers that overflow to inf) and
what our storage cannot hold (NUL characters, which PostgreSQL's text and jsonb refuse; lone
surrogates, which no UTF-8 encoder writes back), keeps the last of duplicate keys silently, and
meets deep nesting with a RecursionError. `loads` refuses all of these with a message naming the
path of the offending value (``references[2].text``), so a reader can name the line and field.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 32  # arrays and objects inside each other; our formats need fewer than 5


class StrictJSONError(json.JSONDecodeError):
    """A JSON text we refuse; `path` names the value (empty for syntax errors)."""

    def __init__(self, msg: str, doc: str, pos: int = 0, path: str = "") -> None:
        super().__init__(msg, doc, pos)
        self.path = path

    def describe(self) -> str:
        """One line for a problem report: the path and what is wrong, or the syntax error."""
        if self.path:
            return f"{self.path}: {self.msg}"
        return f"{self.msg} at column {self.colno}"


class _Refused:
    """Stands in for a value refused while parsing, so the walk can name its path."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class _Pairs(dict):
    duplicates: list[str]


def _pairs(pairs: list[tuple[str, Any]]) -> dict:
    out = _Pairs()
    out.duplicates = []
    for key, value in pairs:
        if key in out:
            out.duplicates.append(key)
        out[key] = value
    return out


def _float(text: str) -> float | _Refused:
    value = float(text)
    return _Refused(f"the number {text[:20]} is out of range") if math.isinf(value) else value


def _constant(name: str) -> _Refused:
    return _Refused(f"{name} is not a JSON number")


def _string_problem(text: str) -> str:
    if "\x00" in text:
        return "a NUL character is not allowed"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "a lone surrogate (an unpaired \\ud800–\\udfff escape) is not allowed"
    return ""


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _check(value: Any, doc: str, max_depth: int) -> None:
    """Walk the parsed value without recursion and refuse the first bad thing, with its path."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        where = path or "(top level)"
        if isinstance(node, _Refused):
            raise StrictJSONError(node.reason, doc, path=where)
        if isinstance(node, str):
            problem = _string_problem(node)
            if problem:
                raise StrictJSONError(problem, doc, path=where)
            continue
        if not isinstance(node, dict | list):
            continue
        if depth >= max_depth:
            raise StrictJSONError(f"nested deeper than {max_depth} levels", doc, path=where)
        if isinstance(node, _Pairs) and node.duplicates:
            twice = node.duplicates[0]
            raise StrictJSONError(f"the key {twice!r} appears twice", doc, path=where)
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in items:
            if isinstance(key, str) and _string_problem(key):
                raise StrictJSONError(f"key: {_string_problem(key)}", doc, path=where)
            stack.append((child, _child(path, key), depth + 1))


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse `text` (bytes must be UTF-8) and return plain dicts, lists, str, int, float, bool
    and None; raise StrictJSONError (a JSONDecodeError) for anything we refuse."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StrictJSONError(f"not valid UTF-8 (byte {exc.start + 1})", "", 0) from None
    try:
        value = json.loads(
            text, object_pairs_hook=_pairs, parse_float=_float, parse_constant=_constant
        )
    except RecursionError:
        raise StrictJSONError(f"nested deeper than {max_depth} levels", text, 0) from None
    except StrictJSONError:
        raise
    except json.JSONDecodeError as exc:
        raise StrictJSONError(exc.msg, exc.doc, exc.pos) from None
    except ValueError as exc:  # an integer with more digits than Python converts
        raise StrictJSONError(str(exc).split(";")[0], text, 0) from None
    _check(value, text, max_depth)
    return _plain(value)


def _plain(value: Any) -> Any:
    """The parsed value with our dict subclass replaced by dict (callers compare and dump it)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def json_safe(value: Any) -> tuple[Any, int]:
    """`value` as JSON that every database stores (PostgreSQL's jsonb refuses NaN): numpy
    scalars become Python numbers, NaN and ±inf become null. Returns it with the number of
    values that became null, so the caller can say why."""
    if isinstance(value, dict):
        pairs = [(k, json_safe(v)) for k, v in value.items()]
        return {k: v for k, (v, _) in pairs}, sum(n for _, (_, n) in pairs)
    if isinstance(value, list | tuple):
        items = [json_safe(v) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, str):
        value = value.item()  # a numpy scalar
    if isinstance(value, float) and not math.isfinite(value):
        return None, 1
    return value, 0
