from __future__ import annotations

from django import forms

from annotate.datasets.models import Dataset
from core.forms import LimitedFileField


class DatasetForm(forms.ModelForm):
    class Meta:
        model = Dataset
        fields = ["name", "slug", "description", "language", "scale_min", "scale_max", "visibility"]
        help_texts = {"slug": "Short name used in links, e.g. reddit-replies-2026."}


class DatasetEditForm(forms.ModelForm):
    """The metadata the owner may change; the slug stays, as links and releases name it."""

    class Meta:
        model = Dataset
        fields = ["name", "description", "language", "scale_min", "scale_max", "visibility"]


class DeleteForm(forms.Form):
    confirm = forms.CharField(label="Dataset slug", help_text="Type the slug to confirm.")

    def __init__(self, *args, slug: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.slug = slug

    def clean_confirm(self) -> str:
        typed = self.cleaned_data["confirm"].strip()
        if typed != self.slug:
            raise forms.ValidationError(f"Type {self.slug} exactly to delete this dataset.")
        return typed


class ImportForm(forms.Form):
    FORMAT_CHOICES = [("", "Guess from the file name"), ("jsonl", "JSONL"), ("tsv", "TSV")]

    file = LimitedFileField(
        limit_setting="IMPORT_MAX_BYTES",
        help_text="JSONL (one conversation a line) or TSV (one reference a row).",
    )
    format = forms.ChoiceField(choices=FORMAT_CHOICES, required=False)
