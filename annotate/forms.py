from __future__ import annotations

from django import forms
from django.conf import settings

from annotate.models import Campaign, Dataset, Role, Split


class DatasetForm(forms.ModelForm):
    class Meta:
        model = Dataset
        fields = ["name", "slug", "description", "language", "scale_min", "scale_max", "visibility"]
        help_texts = {"slug": "Short name used in links, e.g. reddit-replies-2026."}


class ImportForm(forms.Form):
    FORMAT_CHOICES = [("", "Guess from the file name"), ("jsonl", "JSONL"), ("tsv", "TSV")]

    file = forms.FileField(
        help_text="JSONL (one conversation a line) or TSV (one reference a row)."
    )
    format = forms.ChoiceField(choices=FORMAT_CHOICES, required=False)

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > settings.IMPORT_MAX_BYTES:
            limit = settings.IMPORT_MAX_BYTES // (1024 * 1024)
            raise forms.ValidationError(f"The file is larger than {limit} MB.")
        return upload


class SignupForm(forms.Form):
    username = forms.RegexField(
        regex=r"^[\w.@+-]{3,150}$",
        help_text="3 to 150 letters, digits and @/./+/-/_ only.",
        error_messages={"invalid": "Use 3 to 150 letters, digits and @/./+/-/_ only."},
    )
    password = forms.CharField(widget=forms.PasswordInput)
    password_again = forms.CharField(widget=forms.PasswordInput, label="Password (again)")

    def clean(self):
        data = super().clean()
        if data.get("password") != data.get("password_again"):
            self.add_error("password_again", "The two passwords differ.")
        return data


class InvitationForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices, initial=Role.RATER)
    max_uses = forms.IntegerField(min_value=1, max_value=10_000, initial=20)
    note = forms.CharField(max_length=200, required=False)


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = [
            "name",
            "split",
            "instructions",
            "ratings_per_reference",
            "control_rate",
            "lease_minutes",
            "ratings_per_rater",
            "extra_ratings_on_disagreement",
            "disagreement_sd",
        ]
        help_texts = {"split": "Leave empty to rate every split."}

    def __init__(self, *args, dataset: Dataset, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["split"].queryset = Split.objects.filter(dataset=dataset)  # type: ignore[attr-defined]
