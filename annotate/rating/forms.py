"""The form that starts a campaign."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.db.models import Field

from annotate.datasets.models import Dataset, Split
from annotate.judgments.models import EvalSystem
from annotate.rating.choices import ASSIGNMENT_SETTINGS, CAMPAIGN_SETTINGS
from annotate.rating.models import DEFAULT_ANCHORS, Campaign, Mode, Subject

# Assignment settings a form may leave out, and what it then gets: the model's defaults.
DEFAULTS = {
    name: cast(Field, Campaign._meta.get_field(name)).get_default() for name in ASSIGNMENT_SETTINGS
}


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
    # Once offered by the API only: what raters read beside each point of the scale.
    anchors = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}),
        required=False,
        initial="\n".join(DEFAULT_ANCHORS),
        label="Scale labels",
        help_text="One per line, lowest score first: one for each point of the dataset's scale "
        "(pairwise campaigns use their own A/B labels).",
    )

    class Meta:
        model = Campaign
        fields = [
            "name",
            "split",
            "instructions",
            *CAMPAIGN_SETTINGS,
        ]
        help_texts = {"split": "Empty: every split (a campaign on outputs needs one)."}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name, default in DEFAULTS.items():  # left out (a script posting the older form)
            if name not in self.errors and cleaned.get(name) in (None, ""):
                cleaned[name] = default
        return cleaned

    def clean_subject(self) -> str:
        return self.cleaned_data.get("subject") or Subject.REFERENCES

    def clean_mode(self) -> str:
        return self.cleaned_data.get("mode") or Mode.LIKERT

    def clean_anchors(self) -> list[str]:
        labels = [line.strip() for line in self.cleaned_data.get("anchors", "").splitlines()]
        if any(len(label) > 100 for label in labels):
            raise forms.ValidationError("A label has at most 100 characters.")
        return [label for label in labels if label]

    def __init__(self, *args, dataset: Dataset, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["split"].queryset = Split.objects.filter(dataset=dataset)  # type: ignore[attr-defined]
        systems: Any = self.fields["systems"]
        systems.queryset = EvalSystem.objects.filter(dataset=dataset)
        for name in DEFAULTS:
            self.fields[name].required = False
        order = ["name", "subject", "mode", "systems"]
        self.order_fields(order + [name for name in self.fields if name not in order])


class CampaignAssignmentForm(forms.ModelForm):
    """The owner's change of a running campaign's assignment and budget (its dashboard)."""

    class Meta:
        model = Campaign
        fields = list(ASSIGNMENT_SETTINGS)
