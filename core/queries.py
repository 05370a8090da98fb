"""Small reads that many apps ask of a queryset."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet


def count_by(rows: QuerySet[Any], field: str) -> dict[Any, int]:
    """How many of `rows` have each value of `field` (an annotation too), in one grouped query;
    a value no row has is absent."""
    return dict(rows.values_list(field).annotate(n=Count("pk")).values_list(field, "n"))
