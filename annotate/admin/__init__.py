"""Django admin for every annotate model, one module per area."""

from annotate.admin import datasets, human_eval, rating, releases

__all__ = ["datasets", "human_eval", "rating", "releases"]
