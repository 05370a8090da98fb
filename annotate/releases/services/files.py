"""The files of a release, written from plain data (no database): same data, same bytes.

- release.json            what the release is (version, license, citation, build facts)
- items.jsonl             every item of every split; references with their weights and rating
                          statistics for public splits only ("refs" is absent when hidden)
- refs.<split>.jsonl      per public split, exactly the metric CLI's REFS.jsonl format
                          (`python -m scoring.metrics score --refs refs.dev.jsonl --hyps …`)
- references.tsv          the paper's Table 1 layout: one row per reference with its score
- references.parquet      one row per item with a list of references (Hugging Face `datasets`)
- ratings.tsv             the anonymised individual ratings, when the release includes them
- README.md               the datasheet
- manifest.json           name, size and SHA-256 of each file above
"""

from __future__ import annotations

import io
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from annotate.datasets.models import SplitName
from annotate.releases.models import weight_field
from annotate.releases.selectors.content import dumps, scoring_refs, sha256
from annotate.releases.services.datasheet import datasheet_markdown
from core.tabular import tsv_bytes

MANIFEST = "manifest.json"
# Every name a release's file set may have (which of them a release has depends on its splits
# and ratings): an archive holding any other name is not a release.
FILE_NAMES = frozenset(
    {"release.json", "items.jsonl", "references.tsv", "references.parquet", "README.md"}
    | {f"refs.{split}.jsonl" for split in SplitName.values}
    | {"ratings.tsv", MANIFEST}
)
BINARY_FILES = frozenset({"references.parquet"})
TSV_COLUMNS = ("id", "split", "context", "message", "response", "score", "origin", "n", "sd")
CONTEXT_SEPARATOR = " ||| "

PARQUET_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("split", pa.string()),
        ("context", pa.list_(pa.string())),
        ("message", pa.string()),
        (
            "references",
            pa.list_(
                pa.struct(
                    [
                        ("text", pa.string()),
                        ("origin", pa.string()),
                        ("weight", pa.float64()),
                        ("z_weight", pa.float64()),
                        ("n", pa.int64()),
                        ("mean", pa.float64()),
                        ("sd", pa.float64()),
                        ("ci_low", pa.float64()),
                        ("ci_high", pa.float64()),
                    ]
                )
            ),
        ),
    ]
)


def _public(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [item for item in content if item["refs"] is not None]


def items_jsonl(content: list[dict[str, Any]]) -> bytes:
    lines = []
    for item in content:
        line = {k: v for k, v in item.items() if k != "refs" or v is not None}
        lines.append(dumps(line) + "\n")
    return "".join(lines).encode()


def refs_jsonl(content: list[dict[str, Any]], split: str, variant: str) -> bytes:
    lines = []
    for item in content:
        refs = scoring_refs(item, variant) if item["split"] == split else None
        if refs is not None:
            lines.append(dumps({"id": item["id"], "refs": refs}) + "\n")
    return "".join(lines).encode()


def references_tsv(content: list[dict[str, Any]], variant: str) -> bytes:
    key = weight_field(variant)
    rows = [
        (
            item["id"],
            item["split"],
            CONTEXT_SEPARATOR.join(item["context"]),
            item["message"],
            ref["text"],
            ref[key],
            ref["origin"],
            ref["n"],
            ref["sd"],
        )
        for item in _public(content)
        for ref in item["refs"]
    ]
    return tsv_bytes(TSV_COLUMNS, rows)


def references_parquet(content: list[dict[str, Any]]) -> bytes:
    public = _public(content)
    table = pa.Table.from_pylist(
        [
            {
                "id": i["id"],
                "split": i["split"],
                "context": i["context"],
                "message": i["message"],
                "references": i["refs"],
            }
            for i in public
        ],
        schema=PARQUET_SCHEMA,
    )
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd")
    return buffer.getvalue()


def ratings_tsv(ratings: list[tuple[str, str, int, str, int]]) -> bytes:
    return tsv_bytes(("id", "split", "reference", "rater", "score"), ratings)


def scorable_splits(meta: dict[str, Any], content: list[dict[str, Any]]) -> dict[str, int]:
    """Public split → number of items ΔBLEU can score."""
    return {
        split: sum(
            1
            for item in content
            if item["split"] == split and scoring_refs(item, meta["weight_variant"])
        )
        for split in meta["public_splits"]
    }


def release_files(
    *,
    meta: dict[str, Any],
    content: list[dict[str, Any]],
    ratings: list[tuple[str, str, int, str, int]] | None,
) -> dict[str, bytes]:
    """Every file of the release, the manifest last; `content` must hold public data only."""
    files = {
        "release.json": (dumps(meta) + "\n").encode(),
        "items.jsonl": items_jsonl(content),
        "references.tsv": references_tsv(content, meta["weight_variant"]),
        "references.parquet": references_parquet(content),
        "README.md": datasheet_markdown(meta=meta, content=content).encode(),
    }
    for split in meta["public_splits"]:
        files[f"refs.{split}.jsonl"] = refs_jsonl(content, split, meta["weight_variant"])
    if ratings is not None:
        files["ratings.tsv"] = ratings_tsv(ratings)
    listing = [
        {"name": name, "bytes": len(data), "sha256": sha256(data)}
        for name, data in sorted(files.items())
    ]
    files[MANIFEST] = (dumps({"files": listing, "version": meta["version"]}) + "\n").encode()
    return files
