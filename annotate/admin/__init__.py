"""Django admin for every annotate model, one module per area."""

from annotate.admin import datasets, rating

__all__ = ["datasets", "rating"]
