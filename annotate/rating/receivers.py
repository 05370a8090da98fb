"""New references join the open campaigns of their dataset, however they were created.

The apps that create references sit below this one and cannot call it, so it listens: to a
dataset's import (which saves the dataset), to items created one by one with their references
(judgment bundles), to a single reference, and to mining's `candidates_added` (bulk writes send
no post_save). The slots are added once the writing transaction commits — the new rows are then
visible — and once per dataset and transaction, however many rows were saved in it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from annotate.datasets.models import Dataset, Item, Reference, Split
from annotate.mining.signals import candidates_added
from annotate.rating.services.lifecycle import dataset_campaigns_sync


class _SyncDataset:
    """The on-commit callback for one dataset (comparable, so it is registered once)."""

    def __init__(self, dataset_id: int):
        self.dataset_id = dataset_id

    def __call__(self) -> None:
        dataset_campaigns_sync(dataset_id=self.dataset_id)


def _sync_on_commit(dataset_id: int | None) -> None:
    if dataset_id is None:
        return
    connection = transaction.get_connection()
    pending = connection.run_on_commit if connection.in_atomic_block else []
    # Entries are (savepoint ids, callback, robust): a judgments import saves an item per row.
    if any(
        isinstance(entry[1], _SyncDataset) and entry[1].dataset_id == dataset_id
        for entry in pending
    ):
        return
    transaction.on_commit(_SyncDataset(dataset_id))


def _dataset_saved(sender: Any, instance: Dataset, created: bool, **kwargs: Any) -> None:
    if not created:
        _sync_on_commit(instance.pk)


def _item_saved(sender: Any, instance: Item, created: bool, **kwargs: Any) -> None:
    if created:
        split = Split.objects.filter(pk=instance.split_id).values_list("dataset_id", flat=True)
        _sync_on_commit(split.first())


def _reference_saved(sender: Any, instance: Reference, created: bool, **kwargs: Any) -> None:
    if created:
        dataset = Item.objects.filter(pk=instance.item_id).values_list(
            "split__dataset_id", flat=True
        )
        _sync_on_commit(dataset.first())


def _candidates_added(sender: Any, dataset_id: int, **kwargs: Any) -> None:
    _sync_on_commit(dataset_id)


def register() -> None:
    post_save.connect(_dataset_saved, sender=Dataset, dispatch_uid="rating-dataset-saved")
    post_save.connect(_item_saved, sender=Item, dispatch_uid="rating-item-saved")
    post_save.connect(_reference_saved, sender=Reference, dispatch_uid="rating-reference-saved")
    candidates_added.connect(_candidates_added, dispatch_uid="rating-candidates-added")
