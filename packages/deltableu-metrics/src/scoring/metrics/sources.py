"""Where the command line's references come from: REFS.jsonl, sacrebleu-style plain text files
(one file per reference, line k of every file a reference of item k, weight 1), or a release
archive downloaded from the web app (the zip of a release: its ``refs.<split>.jsonl``).
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .base import MetricInputError
from .io import _open_binary, read_refs_jsonl
from .refset import RefItems, RefSet


def read_references(paths: Sequence[str], split: str | None = None) -> RefItems:
    """The items of ``paths``: one REFS.jsonl (or '-'), one release zip, or plain text files."""
    problem = several_files_problem(paths)
    if problem is not None:
        raise MetricInputError(problem)
    if len(paths) == 1 and _is_zip(paths[0]):
        return _from_archive(paths[0], split)
    if split is not None:
        raise MetricInputError("--split applies to a release archive (.zip) only")
    if len(paths) == 1 and _looks_like_jsonl(paths[0]):
        return read_refs_jsonl(paths[0])
    return _from_text_files(paths)


def several_files_problem(paths: Sequence[str]) -> str | None:
    """Why ``paths`` cannot be read together, or None. Several files are sacrebleu's shape (one
    reference a line, line k of each a reference of item k); a REFS.jsonl, standard input (read
    as one) or a release archive holds every reference of its items and is read alone. Given
    with others, it was read as plain text and its JSON lines were scored as references."""
    if len(paths) < 2:
        return None
    for path in paths:
        if path == "-":
            kind = "standard input is read as a REFS.jsonl"
        elif _is_zip(path):
            kind = f"{path} is a release archive"
        elif _looks_like_jsonl(path):
            kind = f"{path} is a REFS.jsonl"
        else:
            continue
        return (
            f"several reference files must all be plain text (one reference a line); {kind}: "
            "give it alone"
        )
    return None


def _is_zip(path: str) -> bool:
    return path != "-" and zipfile.is_zipfile(path)


def _looks_like_jsonl(path: str) -> bool:
    """JSONL when the first non-blank character is '{' (standard input is always JSONL)."""
    if path == "-" or path.endswith(".jsonl"):
        return True
    fh, _ = _open_binary(path, path)
    with fh:
        for raw in fh:
            if raw.strip():
                return raw.lstrip().startswith(b"{")
    return True  # empty: read_refs_jsonl says "no items"


def _from_text_files(paths: Sequence[str]) -> RefItems:
    streams = []
    for path in paths:  # never '-': read alone, as a REFS.jsonl
        fh, _ = _open_binary(path, path)
        with fh:
            data = fh.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise MetricInputError(f"{path}, line {line}: invalid UTF-8 ({exc.reason})") from None
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        streams.append([s.removesuffix("\r") for s in lines])
    counts = {len(s) for s in streams}
    if len(counts) != 1:
        sizes = ", ".join(f"{p}: {len(s)}" for p, s in zip(paths, streams, strict=True))
        raise MetricInputError(f"reference files differ in line count ({sizes})")
    n, k = counts.pop(), len(streams)
    if n == 0:
        raise MetricInputError(f"{paths[0]}: no items")
    texts = [stream[i] for i in range(n) for stream in streams]  # item-major
    ptr = np.arange(0, n * k + 1, k, dtype=np.int64)
    ids = [str(i) for i in range(1, n + 1)]
    return RefItems(RefSet(ids, texts, np.ones(n * k, dtype=np.float64), ptr))


def _from_archive(path: str, split: str | None) -> RefItems:
    with zipfile.ZipFile(path) as archive:
        found = {
            Path(name).name[len("refs.") : -len(".jsonl")]: name
            for name in archive.namelist()
            if Path(name).name.startswith("refs.") and name.endswith(".jsonl")
        }
        if not found:
            raise MetricInputError(f"{path}: no refs.<split>.jsonl in this archive")
        if split is None and len(found) > 1:
            raise MetricInputError(
                f"{path}: several splits ({', '.join(sorted(found))}); choose one with --split"
            )
        chosen = split if split is not None else next(iter(found))
        if chosen not in found:
            raise MetricInputError(
                f"{path}: no split {chosen!r}; it has {', '.join(sorted(found))}"
            )
        with archive.open(found[chosen]) as member:
            return read_refs_jsonl(member, name=f"{path}:{found[chosen]}")
