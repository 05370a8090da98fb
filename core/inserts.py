"""Inserting a checked row when another request may insert the same unique value at once."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, models, transaction


def insert_checked(instance: models.Model, *, exclude: Iterable[str] = ()) -> None:
    """Validate `instance`'s fields (as its form would) and insert it; a unique or check
    constraint the row breaks is a ValidationError naming the field (a 400), not an
    IntegrityError (a 500).

    The database checks the constraints on the insert itself, so they are validated only when
    it refuses the row. Validating them beforehand cost a query each (Django asks the database
    for every unique field, unique constraint and check constraint: four to six a campaign) and
    still could not settle a race: two people creating one slug at once both pass the check.
    """
    exclude = list(exclude)
    instance.full_clean(
        exclude=[*exclude, *_read_relations(instance)],
        validate_unique=False,
        validate_constraints=False,
    )
    try:
        with transaction.atomic():  # a savepoint: the caller's transaction goes on
            instance.save(force_insert=True)
    except IntegrityError:
        instance.validate_unique(exclude=exclude)
        instance.validate_constraints(exclude=exclude)
        raise  # no constraint that validation knows: a fault of ours, reported as one


def _read_relations(instance: models.Model) -> list[str]:
    """The foreign keys set to an object the caller read from the database (the request's user,
    a dataset its selector found): validating one would ask the database whether that row exists,
    a query each. The insert's constraint still holds them, as it held them after that query
    (a row deleted meanwhile fails either way). One that restricts its choices is still checked."""
    names = []
    for field in instance._meta.concrete_fields:
        if not isinstance(field, models.ForeignKey) or not field.is_cached(instance):
            continue
        related = field.get_cached_value(instance)
        if related is None or related.pk is None or field.get_limit_choices_to():
            continue
        if related._state.db is not None and not related._state.adding:
            names.append(field.name)
    return names
