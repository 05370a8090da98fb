"""Campaign sections that other apps' pages show: a dataset's campaigns, a rater's campaigns.

As template tags, so that the datasets and accounts apps, which rating depends on, never import it.
"""

from __future__ import annotations

from django import template
from django.contrib.auth.models import User

from annotate.datasets.models import Dataset
from annotate.rating.selectors.campaigns import campaigns_joined, campaigns_of_dataset

register = template.Library()


@register.inclusion_tag("annotate/campaigns/includes/of_dataset.html")
def dataset_campaigns(dataset: Dataset) -> dict[str, object]:
    """The owner's list of the dataset's campaigns, with the link to start one."""
    return {"dataset": dataset, "campaigns": campaigns_of_dataset(dataset=dataset)}


@register.inclusion_tag("annotate/campaigns/includes/joined.html")
def campaigns_joined_by(user: User) -> dict[str, object]:
    """The campaigns the user rates in, each linking to its rating page."""
    return {"rating_campaigns": campaigns_joined(user=user)}
