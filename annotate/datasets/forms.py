from __future__ import annotations

from django import forms

from annotate.datasets.models import Dataset
from core.forms import LimitedFileField


class DatasetForm(forms.ModelForm):
    class Meta:
        model = Dataset
        fields = ["name", "slug", "description", "language", "scale_min", "scale_max", "visibility"]
        help_texts = {"slug": "Short name used in links, e.g. reddit-replies-2026."}


class ImportForm(forms.Form):
    FORMAT_CHOICES = [("", "Guess from the file name"), ("jsonl", "JSONL"), ("tsv", "TSV")]

    file = LimitedFileField(
        limit_setting="IMPORT_MAX_BYTES",
        help_text="JSONL (one conversation a line) or TSV (one reference a row).",
    )
    format = forms.ChoiceField(choices=FORMAT_CHOICES, required=False)
