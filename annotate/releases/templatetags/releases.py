"""The releases section of a dataset's page, as a template tag so that the datasets app, which
releases depend on, never imports them."""

from __future__ import annotations

from typing import Any

from django import template

from annotate.datasets.models import Dataset
from annotate.releases.selectors.releases import release_list_visible

register = template.Library()


@register.inclusion_tag("annotate/releases/includes/of_dataset.html", takes_context=True)
def dataset_releases(context: Any, dataset: Dataset, can_edit: bool) -> dict[str, object]:
    """The releases the viewer may see, and for the owner the link to freeze one."""
    user = context["request"].user
    return {
        "dataset": dataset,
        "can_edit": can_edit,
        "releases": release_list_visible(user=user, dataset=dataset),
    }
