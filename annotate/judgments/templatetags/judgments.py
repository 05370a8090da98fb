"""`{% dataset_judgment_sets dataset %}`: the dataset's imported judgment sets, for its page."""

from __future__ import annotations

from django import template

from annotate.datasets.models import Dataset
from annotate.judgments.summary_selectors import judgment_sets_of_dataset

register = template.Library()


@register.inclusion_tag("annotate/judgments/includes/of_dataset.html")
def dataset_judgment_sets(dataset: Dataset) -> dict[str, object]:
    """The owner's list of the dataset's judgment sets, each linking to its systems' means."""
    return {"judgment_sets": judgment_sets_of_dataset(dataset=dataset)}
