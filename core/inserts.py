"""Inserting a checked row when another request may insert the same unique value at once."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, models, transaction


def insert_checked(instance: models.Model, *, exclude: Iterable[str] = ()) -> None:
    """Validate `instance` (`full_clean`, as its form would) and insert it.

    Two people creating one slug at once both pass the check; the second insert breaks the
    unique constraint. That request then gets the ValidationError the check gives now, naming
    the field (a 400, as for a value taken before), rather than an IntegrityError (a 500).
    """
    exclude = list(exclude)
    instance.full_clean(exclude=exclude)
    try:
        with transaction.atomic():  # a savepoint: the caller's transaction goes on
            instance.save(force_insert=True)
    except IntegrityError:
        instance.validate_unique(exclude=exclude)
        instance.validate_constraints(exclude=exclude)
        raise  # not a value taken meanwhile: a fault of ours, reported as one
