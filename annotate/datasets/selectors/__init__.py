"""Reads of datasets, with the visibility rules in one place."""

from __future__ import annotations

from collections.abc import Collection, Iterator

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Prefetch, Q, QuerySet

from annotate.datasets.formats import item_to_json
from annotate.datasets.models import Dataset, Item, Reference, Split, Visibility
from core.errors import NotFound

EXPORT_BATCH = 500  # items per query: bounded memory, few round trips


def dataset_list_visible(*, user: User | AnonymousUser) -> QuerySet[Dataset]:
    """Public datasets, plus the user's own (staff see every dataset)."""
    datasets = (
        Dataset.objects.select_related("owner")
        .annotate(n_items=Count("splits__items"))
        .order_by("name")
    )
    if user.is_authenticated and user.is_staff:
        return datasets
    if user.is_authenticated:
        return datasets.filter(Q(visibility=Visibility.PUBLIC) | Q(owner=user))
    return datasets.filter(visibility=Visibility.PUBLIC)


def dataset_get_visible(*, user: User | AnonymousUser, slug: str) -> Dataset:
    """The dataset if the user may see it; a private dataset is a 404 to others, not a 403."""
    try:
        return dataset_list_visible(user=user).get(slug=slug)
    except Dataset.DoesNotExist:
        raise NotFound("No such dataset.") from None


def dataset_splits(*, dataset: Dataset) -> QuerySet[Split]:
    return Split.objects.filter(dataset=dataset)


def dataset_split_get(*, dataset: Dataset, name: str) -> Split:
    """The dataset's split of that name. A dataset without it refuses the request as input on
    `split` (a ValidationError naming the splits it has), not as a missing page: the dataset
    is there, and a 404 read as if it were not."""
    splits = {split.name: split for split in dataset_splits(dataset=dataset)}
    if name not in splits:
        has = f"it has {' and '.join(sorted(splits))}" if splits else "it has no items yet"
        raise ValidationError({"split": f"This dataset has no {name} split ({has})."})
    return splits[name]


def dataset_can_edit(*, user: User | AnonymousUser, dataset: Dataset) -> bool:
    return user.is_authenticated and (user.is_staff or dataset.owner_id == user.pk)


def dataset_get_editable(*, user: User | AnonymousUser, slug: str, refusal: str) -> Dataset:
    """The dataset if the user may change it; ``refusal`` as a 403 to one who may only see it
    (and the 404 of :func:`dataset_get_visible` to others)."""
    dataset = dataset_get_visible(user=user, slug=slug)
    if not dataset_can_edit(user=user, dataset=dataset):
        raise PermissionDenied(refusal)
    return dataset


def dataset_items(
    *, dataset: Dataset, split: str | None = None, hidden: Collection[str] = frozenset()
) -> QuerySet[Item]:
    """Items in import order with their references, except those of the `hidden` splits (ask
    `annotate.datasets.visibility.dataset_splits_hidden_from` which splits a user may not see)."""
    items = Item.objects.filter(split__dataset=dataset).select_related("split")
    if split:
        items = items.filter(split__name=split)
    references = Reference.objects.exclude(item__split__name__in=list(hidden))
    return items.prefetch_related(
        Prefetch("references", queryset=references.order_by("position"))
    ).order_by("position")


def dataset_export_jsonl(
    *, dataset: Dataset, hidden: Collection[str] = frozenset()
) -> Iterator[str]:
    """The dataset as canonical JSONL lines (with newlines), in import order; items of the
    `hidden` splits come without their references."""
    items = dataset_items(dataset=dataset, hidden=hidden)
    last = -1
    while True:
        batch = list(items.filter(position__gt=last)[:EXPORT_BATCH])
        if not batch:
            return
        for item in batch:
            references = [
                {"text": r.text, "origin": r.origin, "provenance": r.provenance}
                for r in item.references.all()
            ]
            yield (
                item_to_json(
                    external_id=item.external_id,
                    split=item.split.name,
                    context=item.context,
                    message=item.message,
                    references=references,
                )
                + "\n"
            )
        last = batch[-1].position


def dataset_by_slug(*, slug: str) -> Dataset | None:
    """The dataset of that slug with its owner, whoever may see it (for management commands)."""
    return Dataset.objects.filter(slug=slug).select_related("owner").first()
