"""Writes to datasets: creation, imports, statistics."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F, ProtectedError, Q, RestrictedError
from django.utils import timezone

from annotate.accounts.selectors import user_is_researcher
from annotate.datasets.formats import FileProblems, ItemRecord, parse_jsonl, parse_tsv
from annotate.datasets.models import Dataset, Item, Reference, Split
from annotate.datasets.runs import dataset_runs_cancel
from annotate.datasets.selectors.collisions import collisions_in, split_collision_message
from annotate.datasets.selectors.deletion import DeletionPreview, dataset_deletion_preview
from core.bulk import analyze_after_commit
from core.dispatch import dispatch
from core.inserts import insert_checked
from core.lines import LineProblem
from core.queries import count_by

PARSERS = {"jsonl": parse_jsonl, "tsv": parse_tsv}


@dataclass(frozen=True)
class ImportSummary:
    items: int
    references: int


def dataset_creator_check(*, user: User | AnonymousUser) -> None:
    """Only researchers (and staff) own datasets, whichever way one is made: the page, the API,
    a command, an imported release. PermissionDenied otherwise."""
    if not user_is_researcher(user):
        raise PermissionDenied("Only researchers can create datasets.")


def dataset_create(*, owner: User, **fields: object) -> Dataset:
    dataset_creator_check(user=owner)
    dataset = Dataset(owner=owner, **fields)
    insert_checked(dataset)
    return dataset


def dataset_update(*, dataset: Dataset, **fields: object) -> Dataset:
    for name, value in fields.items():
        setattr(dataset, name, value)
    dataset.full_clean()
    dataset.save()
    return dataset


class DeletionRefused(ValidationError):
    """Something keeps the dataset (a release, a study): nothing was deleted; `preview` names it."""

    def __init__(self, preview: DeletionPreview):
        super().__init__(preview.refusal())
        self.preview = preview


@transaction.atomic
def dataset_delete(*, dataset: Dataset) -> DeletionPreview:
    """Delete a dataset with everything that hangs on it; returns what went. Raises
    DeletionRefused, deleting nothing, when something protects it (a release is citable)."""
    # Locked, so nothing is frozen or imported between the preview and the delete.
    dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
    preview = dataset_deletion_preview(dataset=dataset)
    if not preview.can_delete:
        raise DeletionRefused(preview)
    try:
        dataset_runs_cancel(dataset_id=dataset.pk)
        dataset.delete()
    except (ProtectedError, RestrictedError):
        # Another transaction added a protecting row after the preview: name it, as above.
        raise DeletionRefused(dataset_deletion_preview(dataset=dataset)) from None
    return preview


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


def _existing_conflicts(records: list[ItemRecord], taken: dict[str, set[str]]) -> list[LineProblem]:
    return [
        LineProblem(r.line, f"{r.external_id!r} already exists in the {r.split} split", "id")
        for r in records
        if r.split in taken.get(r.external_id, ())
    ]


def _split_collisions(records: list[ItemRecord], taken: dict[str, set[str]]) -> list[LineProblem]:
    """One problem naming every id that would be in two splits, within the file or with the
    dataset's items (`taken`: each id's splits), at the first such line."""
    split_of: dict[str, str] = {}
    clashes: dict[str, tuple[int, str, str]] = {}  # id → (line refused, its split, the other)
    for record in records:
        seen = split_of.setdefault(record.external_id, record.split)
        if seen != record.split:
            clashes.setdefault(record.external_id, (record.line, record.split, seen))
    line_of = {(r.split, r.external_id): r.line for r in records}
    for split in sorted({r.split for r in records}):
        ids = [r.external_id for r in records if r.split == split]
        for external_id, other in collisions_in(taken, split=split, external_ids=ids).items():
            clashes.setdefault(external_id, (line_of[split, external_id], split, other))
    if not clashes:
        return []
    ordered = sorted(clashes.items(), key=lambda kv: kv[1][0])
    message = split_collision_message(
        {external_id: other for external_id, (_, _, other) in ordered},
        split=ordered[0][1][1],
        lines={external_id: line for external_id, (line, _, _) in ordered},
    )
    return [LineProblem(ordered[0][1][0], message, "id")]


def _items_held(dataset: Dataset) -> tuple[dict[str, set[str]], int]:
    """Each item id of the dataset with its splits, and the last position taken (-1 for none):
    one read answers both checks of an import and where its items go."""
    taken: dict[str, set[str]] = {}
    last = -1
    for split, external_id, position in Item.objects.filter(split__dataset=dataset).values_list(
        "split__name", "external_id", "position"
    ):
        taken.setdefault(external_id, set()).add(split)
        last = max(last, position)
    return taken, last


def _splits_of(dataset: Dataset, names: set[str]) -> dict[str, Split]:
    """The dataset's splits of these names, the missing ones created (the caller holds the
    dataset's row lock, so no other import creates them meanwhile)."""
    splits = {split.name: split for split in Split.objects.filter(dataset=dataset, name__in=names)}
    missing = [Split(dataset=dataset, name=name) for name in sorted(names - splits.keys())]
    splits.update((split.name, split) for split in Split.objects.bulk_create(missing))
    return splits


@transaction.atomic
def dataset_import(*, dataset: Dataset, records: list[ItemRecord]) -> ImportSummary:
    """Add items and their references to a dataset in one transaction."""
    # Lock the dataset row so two imports cannot interleave their positions.
    dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
    taken, last = _items_held(dataset)
    conflicts = _existing_conflicts(records, taken) + _split_collisions(records, taken)
    if conflicts:
        raise FileProblems(conflicts)
    splits = _splits_of(dataset, {r.split for r in records})
    first = last + 1
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
    analyze_after_commit(Item, Reference, rows=len(items) + len(references))
    transaction.on_commit(lambda: _enqueue_stats(dataset.pk))
    return ImportSummary(items=len(items), references=len(references))


# The task that runs dataset_compute_stats (registered under this name by this app's tasks.py).
STATS_TASK = "annotate.datasets.tasks.dataset_compute_stats"


def _enqueue_stats(dataset_id: int) -> None:
    dispatch(STATS_TASK, dataset_id)


def dataset_compute_stats(*, dataset_id: int) -> dict[str, object]:
    """Recompute a dataset's counts (items and references per split and per origin)."""
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        return {}  # deleted after its debounced task was sent: nothing to count
    splits = count_by(Item.objects.filter(split__dataset=dataset), "split__name")
    origins = count_by(Reference.objects.filter(item__split__dataset=dataset), "origin")
    stats = {
        "items": sum(splits.values()),
        "references": sum(origins.values()),
        "items_per_split": splits,
        "references_per_origin": origins,
    }
    Dataset.objects.filter(pk=dataset_id).update(stats=stats, stats_updated_at=timezone.now())
    return stats


def datasets_stats_refresh_stale() -> int:
    """Recompute the counts of every dataset changed since they were last counted (or never
    counted); how many."""
    stale = Dataset.objects.filter(
        Q(stats_updated_at__isnull=True) | Q(stats_updated_at__lt=F("updated_at"))
    ).values_list("pk", flat=True)
    for dataset_id in stale:
        dataset_compute_stats(dataset_id=dataset_id)
    return len(stale)
