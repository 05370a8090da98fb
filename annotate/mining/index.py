"""A BM25 index over a corpus, built with bm25s, saved to a directory and searched from it.

Two fields per triple, each its own bm25s index over one shared vocabulary: the triple's message
and its response. A seed is scored as BM25(message field, seed message) + BM25(response field,
seed response), so a hit has to resemble the seed on both sides — the paper's "triples for which
both message and response are similar" (§4.1) — rather than on whichever side is longer.

The triples themselves go to `rows.jsonl` with a byte-offset table beside it, so a hit's text is
one seek away and the corpus file is never needed again after indexing.
"""

from __future__ import annotations

import json
import logging
import time
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import bm25s
import numpy as np

from annotate.mining.corpus import Triple
from annotate.mining.text import tokens

INDEX_VERSION = 1
FIELDS = ("message", "response")
ROWS = "rows.jsonl"
OFFSETS = "rows.offsets.npy"
META = "meta.json"
# A query touching fewer postings than 1/SPARSE_BELOW of the rows is scored sparsely (see search).
SPARSE_BELOW = 4
PROGRESS_EVERY = 5000  # rows between progress reports: one small UPDATE each
# bm25s's defaults (Lucene's BM25, k1=1.5, b=0.75) suit short chat turns well enough.
BM25_PARAMS = {"k1": 1.5, "b": 0.75, "method": "lucene"}
# bm25s logs every index build at DEBUG level on its own logger, set to DEBUG.
logging.getLogger("bm25s").setLevel(logging.INFO)


class EmptyCorpus(ValueError):
    """The corpus holds no usable triple."""


@dataclass(frozen=True)
class Hit:
    doc: int  # position of the triple in the index, 0-based
    score: float


def build_index(
    triples: Iterable[Triple],
    directory: Path,
    *,
    language: str = "en",
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Index `triples` into `directory` (created); return what `meta.json` records.

    Memory holds the token ids of every triple (a few dozen bytes a token), never their text.
    """
    started = time.monotonic()
    directory.mkdir(parents=True, exist_ok=True)
    vocab: dict[str, int] = {}
    field_ids: dict[str, list[list[int]]] = {name: [] for name in FIELDS}
    offsets = array("q")
    with (directory / ROWS).open("wb") as rows:
        for n, triple in enumerate(triples, start=1):
            for name in FIELDS:
                words = tokens(getattr(triple, name), language)
                field_ids[name].append([vocab.setdefault(w, len(vocab)) for w in words])
            offsets.append(rows.tell())
            rows.write(_row_json(triple))
            if progress is not None and n % PROGRESS_EVERY == 0:
                progress(n)
    if not offsets:
        raise EmptyCorpus("The corpus holds no usable triple.")
    n_rows = len(offsets)
    np.save(directory / OFFSETS, np.frombuffer(offsets, dtype=np.int64))
    del offsets
    for name in FIELDS:
        _build_field(field_ids.pop(name), vocab, directory / name)
    meta = {
        "version": INDEX_VERSION,
        "rows": n_rows,
        "vocabulary": len(vocab),
        "language": language,
        "bm25": BM25_PARAMS,
        "bm25s": bm25s.__version__,
        "seconds": round(time.monotonic() - started, 2),
    }
    (directory / META).write_text(json.dumps(meta, indent=2))
    return meta


def _row_json(triple: Triple) -> bytes:
    row = [triple.line, triple.conversation, triple.context, triple.message, triple.response]
    return json.dumps(row, ensure_ascii=False).encode() + b"\n"


def _build_field(ids: list[list[int]], vocab: dict[str, int], directory: Path) -> None:
    retriever = bm25s.BM25(**BM25_PARAMS)
    retriever.index((ids, vocab), create_empty_token=False, show_progress=False)
    del ids
    retriever.save(directory, show_progress=False)


class CorpusIndex:
    """A saved index opened for searching; the score arrays are memory-mapped, not read."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.meta = json.loads((directory / META).read_text())
        if self.meta.get("version") != INDEX_VERSION:
            raise ValueError(f"The index in {directory} is from another version; rebuild it.")
        self.language = self.meta["language"]
        self.fields = {
            name: bm25s.BM25.load(directory / name, mmap=True, load_vocab=name == "message")
            for name in FIELDS
        }
        self.vocab: dict[str, int] = self.fields["message"].vocab_dict
        self.offsets = np.load(directory / OFFSETS, mmap_mode="r", allow_pickle=False)
        self._rows: IO[bytes] = (directory / ROWS).open("rb")

    def __len__(self) -> int:
        return len(self.offsets)

    def close(self) -> None:
        self._rows.close()

    def __enter__(self) -> CorpusIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _term_ids(self, text: str) -> list[int]:
        return [self.vocab[w] for w in tokens(text, self.language) if w in self.vocab]

    def _postings(self, name: str, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        scores = self.fields[name].scores
        data, indices, indptr = scores["data"], scores["indices"], scores["indptr"]
        docs = [indices[indptr[t] : indptr[t + 1]] for t in ids]
        values = [data[indptr[t] : indptr[t + 1]] for t in ids]
        return np.concatenate(docs), np.concatenate(values)

    def _n_postings(self, name: str, ids: list[int]) -> int:
        indptr = self.fields[name].scores["indptr"]
        return sum(int(indptr[t + 1] - indptr[t]) for t in ids)

    def search(self, *, message: str, response: str, k: int) -> list[Hit]:
        """The k best triples for a seed, best first; only triples sharing a term score.

        A query whose terms are rare (most are) is scored on its posting lists alone — sort and
        add — so it costs in proportion to the triples sharing its words, not to the corpus
        size; one with very common terms uses bm25s's dense scoring, cheaper there.
        """
        ids = {"message": self._term_ids(message), "response": self._term_ids(response)}
        postings = sum(self._n_postings(name, term_ids) for name, term_ids in ids.items())
        if not postings or k <= 0:
            return []
        if postings * SPARSE_BELOW > len(self):
            return self._dense_top(ids, k)
        parts = [self._postings(name, term_ids) for name, term_ids in ids.items() if term_ids]
        docs, inverse = np.unique(np.concatenate([d for d, _ in parts]), return_inverse=True)
        totals = np.bincount(inverse, weights=np.concatenate([v for _, v in parts]))
        return _top(docs, totals, k)

    def _dense_top(self, ids: dict[str, list[int]], k: int) -> list[Hit]:
        totals = np.zeros(len(self), dtype=np.float64)
        for name, term_ids in ids.items():
            if term_ids:
                totals += self.fields[name].get_scores_from_ids(term_ids)
        docs = np.flatnonzero(totals)
        return _top(docs, totals[docs], k)

    def row(self, doc: int) -> Triple:
        self._rows.seek(int(self.offsets[doc]))
        line, conversation, context, message, response = json.loads(self._rows.readline())
        return Triple(line, context, message, response, conversation)


def _top(docs: np.ndarray, totals: np.ndarray, k: int) -> list[Hit]:
    best = np.argpartition(-totals, k - 1)[:k] if len(docs) > k else np.arange(len(docs))
    # Ties go to the earlier row, so a run is reproducible.
    order = best[np.lexsort((docs[best], -totals[best]))]
    return [Hit(int(docs[i]), float(totals[i])) for i in order]
