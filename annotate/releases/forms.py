"""The "Freeze a release" form (the dataset's campaigns are the only weight sources offered)."""

from __future__ import annotations

from typing import Any

from django import forms

from annotate.datasets.models import Dataset, SplitName
from annotate.rating.models import Campaign, Subject
from annotate.rating.selectors.campaigns import campaigns_of_dataset
from annotate.releases.models import WeightVariant, semantic_version
from annotate.releases.services.unrated import Unrated

UNRATED_HELP = (
    "References the campaign has not rated have no weight. Without a choice, freezing is "
    "refused while there are some: wait until they are rated."
)


def unrated_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        choices=[("", "Refuse while some are unrated (wait)"), *Unrated.CHOICES],
        required=False,
        label="Unrated references",
        help_text=UNRATED_HELP,
    )


class ReleaseForm(forms.Form):
    version = forms.CharField(max_length=32, validators=[semantic_version], initial="1.0.0")
    campaign = forms.ModelChoiceField(queryset=Campaign.objects.none(), help_text="Weights from.")
    weight_variant = forms.ChoiceField(choices=WeightVariant.choices, initial=WeightVariant.RAW)
    public_splits = forms.MultipleChoiceField(
        choices=SplitName.choices,
        initial=[SplitName.DEV],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Splits whose references are published; unchecked splits stay hidden.",
    )
    include_ratings = forms.BooleanField(required=False, label="Include anonymised ratings")
    license = forms.CharField(max_length=100, initial="CC-BY-4.0")
    citation = forms.CharField(widget=forms.Textarea(attrs={"rows": 5}), required=False)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    unrated = unrated_field()

    def __init__(self, *args, dataset: Dataset, **kwargs):
        super().__init__(*args, **kwargs)
        campaign: Any = self.fields["campaign"]
        campaign.queryset = campaigns_of_dataset(dataset=dataset, subject=Subject.REFERENCES)


class UnratedChoiceForm(forms.Form):
    """On the publication's confirmation, for a draft frozen before unrated references were
    decided on."""

    unrated = unrated_field()
