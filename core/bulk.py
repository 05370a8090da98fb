"""Bulk writes: many rows updated by primary key in one statement per batch, and the planner's
statistics refreshed after a large write.

Django's `bulk_update` builds a CASE arm per row and field in Python (about half a millisecond
each): 3,000 rows of two fields took 2.7 s before the database saw them. Here the new values
travel as a VALUES list joined on the key — `UPDATE … FROM`, in PostgreSQL and SQLite ≥ 3.33.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection, transaction
from django.db.models import Field, Model

DEFAULT_BATCH = 500
# Rows per bulk INSERT of many rows (a release's snapshot): bounded memory, few round trips.
INSERT_BATCH = 1000


def _concrete(model: type[Model], names: Sequence[str]) -> list[tuple[Field, str]]:
    """Each named field with its column; relations without a column of their own are refused."""
    out = []
    for name in names:
        field = model._meta.get_field(name)
        if not isinstance(field, Field) or not field.column:
            raise ValueError(f"{model.__name__}.{name} is not a column this can write.")
        out.append((field, field.column))
    return out


def update_by_pk(
    model: type[Model], objs: Sequence[Model], fields: Sequence[str], batch: int = DEFAULT_BATCH
) -> int:
    """Write `fields` of each of `objs` (instances with their pk set) to its row; returns the
    number of statements. Values are prepared as the fields do (dates, JSON); no save(), no
    signals, no auto_now."""
    if not objs:
        return 0
    meta = model._meta
    pk_name = meta.pk.name if meta.pk is not None else "id"
    (pk_field, pk_column), *columns = _concrete(model, [pk_name, *fields])
    quote = connection.ops.quote_name
    table, pk = quote(meta.db_table), quote(pk_column)
    max_params = connection.features.max_query_params
    per_row = len(columns) + 1
    size = min(batch, max_params // per_row) if max_params else batch
    # PostgreSQL types a VALUES column from its first row; SQLite must not be given CASTs
    # (a CAST to its "datetime" would keep only the year).
    if connection.vendor == "postgresql":
        types = [field.db_type(connection) for field, _ in [(pk_field, pk_column), *columns]]
        row = ", ".join(f"CAST(%s AS {db_type})" for db_type in types)
    else:
        row = ", ".join(["%s"] * per_row)
    names = ", ".join(f"c{k}" for k in range(len(columns)))
    assignments = ", ".join(f"{quote(column)} = v.c{k}" for k, (_, column) in enumerate(columns))
    statements = 0
    with connection.cursor() as cursor:
        for start in range(0, len(objs), size):
            chunk = objs[start : start + size]
            values = ", ".join([f"({row})"] * len(chunk))
            params: list[Any] = []
            for obj in chunk:
                params.append(obj.pk)
                for field, _ in columns:
                    params.append(field.get_db_prep_save(getattr(obj, field.attname), connection))
            cursor.execute(
                f"WITH v(pk, {names}) AS (VALUES {values}) "  # noqa: S608 (names from the model)
                f"UPDATE {table} SET {assignments} FROM v WHERE {table}.{pk} = v.pk",
                params,
            )
            statements += 1
    return statements


# Fewer new rows than this leave the statistics close enough; ANALYZE samples up to 30,000
# rows a table, so it is not free to run after every small write.
ANALYZE_MIN_ROWS = 1000


def analyze_after_commit(*models: type[Model], rows: int = ANALYZE_MIN_ROWS) -> None:
    """Refresh PostgreSQL's planner statistics for the tables of `models` once the current
    transaction commits, when a bulk write added at least ANALYZE_MIN_ROWS `rows`.

    Why: PostgreSQL plans joins from statistics that autovacuum gathers later, or never where it
    is turned off. Right after a release of 1.6 million references was frozen, the statistics
    still described empty tables. The planner then chose a nested loop for 38 rows, and the
    board's reference read ran for more than 8 minutes in `bench/scoring_e2e.py` instead of
    seconds. SQLite (the embedded default, for small data) plans without gathered statistics
    unless asked, so it skips this.
    """
    if connection.vendor != "postgresql" or rows < ANALYZE_MIN_ROWS:
        return
    tables = [connection.ops.quote_name(model._meta.db_table) for model in models]

    def analyze() -> None:
        with connection.cursor() as cursor:
            for table in tables:
                cursor.execute(f"ANALYZE {table}")  # names from the models, not from input

    transaction.on_commit(analyze)
