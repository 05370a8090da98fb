"""Who sees what: the one visibility policy for datasets, their hidden splits and everything
derived from them (reference texts, weights, ratings, per-item statistics, mined candidates,
drill-downs, comparisons, exports, release files).

* A private dataset, and everything on it, exists for its owner and staff only: to anyone else
  every route answers 404, exactly as for a dataset that does not exist.
* A public dataset's items (context and message) are public: systems need them as inputs.
* The references of a *hidden* split, and all that is derived from them, reach its owner and
  staff only. A dataset's test split is hidden until the owner reveals it (with a confirmation,
  logged as a `SplitReveal`); a release hides every split not in its `public_splits`.
* Raters see the references leased to them, one at a time, never a listing.

Selectors, serializers and exports ask here; none decides on its own.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

from annotate.datasets.models import Dataset, SplitName

# Splits whose references are hidden from everyone but the owner until revealed.
HIDDEN_UNTIL_REVEALED = frozenset({SplitName.TEST.value})
ALL_SPLITS = frozenset(SplitName.values)


def sees_everything(*, user: User | AnonymousUser, dataset: Dataset) -> bool:
    """The dataset's owner and staff see every split of it, hidden or not."""
    return user.is_authenticated and (user.is_staff or dataset.owner_id == user.pk)


def dataset_hidden_splits(*, dataset: Dataset) -> frozenset[str]:
    """Splits of the live dataset whose references are hidden from everyone but the owner."""
    return HIDDEN_UNTIL_REVEALED - set(dataset.revealed_splits or [])


def dataset_splits_hidden_from(*, user: User | AnonymousUser, dataset: Dataset) -> frozenset[str]:
    """The splits whose references this user may not see on the live dataset."""
    if sees_everything(user=user, dataset=dataset):
        return frozenset()
    return dataset_hidden_splits(dataset=dataset)
