"""Writes to datasets: creation, imports, statistics."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone

from annotate.datasets.formats import FileProblems, ItemRecord, parse_jsonl, parse_tsv
from annotate.datasets.models import Dataset, Item, Reference, Split
from core.dispatch import dispatch
from core.lines import LineProblem

PARSERS = {"jsonl": parse_jsonl, "tsv": parse_tsv}


@dataclass(frozen=True)
class ImportSummary:
    items: int
    references: int


def dataset_create(*, owner: User, **fields: object) -> Dataset:
    dataset = Dataset(owner=owner, **fields)
    dataset.full_clean()
    dataset.save()
    return dataset


def dataset_update(*, dataset: Dataset, **fields: object) -> Dataset:
    for name, value in fields.items():
        setattr(dataset, name, value)
    dataset.full_clean()
    dataset.save()
    return dataset


def dataset_delete(*, dataset: Dataset) -> None:
    """Delete a dataset with its items; raises ProtectedError when it has releases (citable)."""
    dataset.delete()


def import_format_for(filename: str, requested: str = "") -> str:
    """The format named by the user, or guessed from the file's extension."""
    if requested:
        if requested not in PARSERS:
            raise ValidationError({"format": f"Unknown format {requested!r}; use jsonl or tsv."})
        return requested
    lowered = filename.lower()
    if lowered.endswith((".jsonl", ".json", ".ndjson")):
        return "jsonl"
    if lowered.endswith((".tsv", ".tab", ".txt")):
        return "tsv"
    raise ValidationError({"format": "Cannot tell the format from the file name; choose one."})


def dataset_import_file(*, dataset: Dataset, lines: Iterable[bytes], fmt: str) -> ImportSummary:
    """Parse a file and import it whole, or raise FileProblems and write nothing."""
    return dataset_import(dataset=dataset, records=PARSERS[fmt](lines))


def _existing_conflicts(dataset: Dataset, records: list[ItemRecord]) -> list[LineProblem]:
    wanted = {(r.split, r.external_id) for r in records}
    taken = set(
        Item.objects.filter(split__dataset=dataset).values_list("split__name", "external_id")
    )
    return [
        LineProblem(r.line, f"{r.external_id!r} already exists in the {r.split} split", "id")
        for r in records
        if (r.split, r.external_id) in taken & wanted
    ]


@transaction.atomic
def dataset_import(*, dataset: Dataset, records: list[ItemRecord]) -> ImportSummary:
    """Add items and their references to a dataset in one transaction."""
    # Lock the dataset row so two imports cannot interleave their positions.
    dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
    conflicts = _existing_conflicts(dataset, records)
    if conflicts:
        raise FileProblems(conflicts)
    splits = {
        name: Split.objects.get_or_create(dataset=dataset, name=name)[0]
        for name in {r.split for r in records}
    }
    start = Item.objects.filter(split__dataset=dataset).aggregate(m=Max("position"))["m"]
    first = 0 if start is None else start + 1
    items = Item.objects.bulk_create(
        Item(
            split=splits[r.split],
            external_id=r.external_id,
            context=r.context,
            message=r.message,
            position=first + offset,
        )
        for offset, r in enumerate(records)
    )
    references = Reference.objects.bulk_create(
        Reference(
            item=item, text=ref.text, origin=ref.origin, provenance=ref.provenance, position=i
        )
        for item, record in zip(items, records, strict=True)
        for i, ref in enumerate(record.references)
    )
    dataset.save(update_fields=["updated_at"])
    transaction.on_commit(lambda: _enqueue_stats(dataset.pk))
    return ImportSummary(items=len(items), references=len(references))


# The task that runs dataset_compute_stats (registered under this name by this app's tasks.py).
STATS_TASK = "annotate.datasets.tasks.dataset_compute_stats"


def _enqueue_stats(dataset_id: int) -> None:
    dispatch(STATS_TASK, dataset_id)


def dataset_compute_stats(*, dataset_id: int) -> dict[str, object]:
    """Recompute a dataset's counts (items and references per split and per origin)."""
    dataset = Dataset.objects.get(pk=dataset_id)
    splits = dict(
        Item.objects.filter(split__dataset=dataset)
        .values_list("split__name")
        .annotate(n=Count("id"))
        .values_list("split__name", "n")
    )
    origins = dict(
        Reference.objects.filter(item__split__dataset=dataset)
        .values_list("origin")
        .annotate(n=Count("id"))
        .values_list("origin", "n")
    )
    stats = {
        "items": sum(splits.values()),
        "references": sum(origins.values()),
        "items_per_split": splits,
        "references_per_origin": origins,
    }
    Dataset.objects.filter(pk=dataset_id).update(stats=stats, stats_updated_at=timezone.now())
    return stats
