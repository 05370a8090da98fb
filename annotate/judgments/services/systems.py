"""Evaluated systems and their outputs (from files, or copied in by the scoring app)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from annotate.datasets.models import Dataset, Item
from annotate.judgments.models import EvalSystem, SystemOutput


def _items_by_id(dataset: Dataset, split: str) -> dict[str, int]:
    rows = Item.objects.filter(split__dataset=dataset, split__name=split)
    return dict(rows.values_list("external_id", "pk"))


@transaction.atomic
def eval_system_set_outputs(
    *,
    dataset: Dataset,
    name: str,
    split: str,
    outputs: Iterable[tuple[str, str]],
    source: str = "file",
    source_ref: str = "",
    description: str = "",
) -> EvalSystem:
    """Create the system (or reuse it by name) and replace its outputs on `split`."""
    system, _ = EvalSystem.objects.get_or_create(
        dataset=dataset,
        name=name,
        defaults={"source": source, "source_ref": source_ref, "description": description},
    )
    SystemOutput.objects.filter(system=system, split=split).delete()
    items = _items_by_id(dataset, split)
    SystemOutput.objects.bulk_create(
        SystemOutput(
            system=system, split=split, external_id=item_id, item_id=items.get(item_id), text=text
        )
        for item_id, text in outputs
    )
    return system
