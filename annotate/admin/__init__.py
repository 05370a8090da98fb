"""Django admin for every annotate model, one module per area."""

from annotate.admin import datasets, rating, releases

__all__ = ["datasets", "rating", "releases"]
