"""The form that starts a campaign."""

from __future__ import annotations

from typing import Any

from django import forms

from annotate.datasets.models import Dataset, Split
from annotate.judgments.models import EvalSystem
from annotate.rating.models import Campaign, Mode, Subject


class CampaignForm(forms.ModelForm):
    """One form for every campaign: on references, or on evaluated systems' outputs."""

    subject = forms.ChoiceField(choices=Subject.choices, initial=Subject.REFERENCES, required=False)
    mode = forms.ChoiceField(
        choices=Mode.choices,
        initial=Mode.LIKERT,
        required=False,
        help_text="Pairwise rates outputs only.",
    )
    draft = forms.BooleanField(
        required=False,
        label="Keep it a draft",
        help_text="Nobody can join until you open it from its dashboard.",
    )
    systems = forms.ModelMultipleChoiceField(
        queryset=EvalSystem.objects.none(),
        required=False,
        help_text="Outputs: the systems to evaluate (two or more for pairwise).",
    )

    class Meta:
        model = Campaign
        fields = [
            "name",
            "split",
            "instructions",
            "ratings_per_unit",
            "control_rate",
            "lease_minutes",
            "ratings_per_rater",
            "extra_ratings_on_disagreement",
            "disagreement_sd",
            "qc_min_seconds",
            "qc_max_straightline",
            "qc_alpha",
            "qc_min_controls",
            "qc_max_repeat_difference",
        ]
        help_texts = {"split": "Empty: every split (a campaign on outputs needs one)."}

    def clean_subject(self) -> str:
        return self.cleaned_data.get("subject") or Subject.REFERENCES

    def clean_mode(self) -> str:
        return self.cleaned_data.get("mode") or Mode.LIKERT

    def __init__(self, *args, dataset: Dataset, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["split"].queryset = Split.objects.filter(dataset=dataset)  # type: ignore[attr-defined]
        systems: Any = self.fields["systems"]
        systems.queryset = EvalSystem.objects.filter(dataset=dataset)
        order = ["name", "subject", "mode", "systems"]
        self.order_fields(order + [name for name in self.fields if name not in order])
