"""The forms of a judgments import: the files, then (when unsure) which column holds what."""

from __future__ import annotations

from django import forms

from annotate.datasets.models import SplitName
from annotate.judgments.columns import LAYOUTS, SINGLE_ROLES, MappedColumn
from core.forms import LimitedFileField


def _file(help_text: str, required: bool = False) -> LimitedFileField:
    return LimitedFileField(
        limit_setting="IMPORT_MAX_BYTES", required=required, help_text=help_text
    )


class JudgmentUploadForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="Default: the file's name.")
    split = forms.ChoiceField(choices=SplitName.choices, initial=SplitName.TEST)
    judgments = _file("Per-judge scores: judge, id, system, criteria …", required=True)
    systems = _file("System responses: system, id, response")
    contexts = _file("Contexts: id, depth, context")
    references = _file("References: id, ref1, ref2, …")


class ColumnsForm(forms.Form):
    """One select per previewed column, its guessed role chosen; the staged upload's token."""

    token = forms.CharField(widget=forms.HiddenInput, max_length=1000)
    name = forms.CharField(max_length=200, required=False, widget=forms.HiddenInput)
    split = forms.ChoiceField(choices=SplitName.choices, widget=forms.HiddenInput)

    def __init__(self, *args, preview: dict, **kwargs):
        super().__init__(*args, **kwargs)
        self.preview = preview
        for key, file in preview["files"].items():
            roles = LAYOUTS[key].roles
            for column in file["columns"]:
                self.fields[f"{key}-{column['number']}"] = forms.ChoiceField(
                    choices=[(role, role) for role in roles],
                    initial=column["role"],
                    label=column["name"] or f"column {column['number']}",
                )

    def previews(self) -> list[dict]:
        """Each file's preview with the bound select of each column, for the template."""
        return [
            {**file, "key": key, "selects": [self[f"{key}-{c['number']}"] for c in file["columns"]]}
            for key, file in self.preview["files"].items()
        ]

    def clean(self):
        data = super().clean()
        for key, file in self.preview["files"].items():
            chosen = [data.get(f"{key}-{c['number']}") for c in file["columns"]]
            for role in SINGLE_ROLES:
                if chosen.count(role) > 1:
                    self.add_error(None, f"{file['file']}: only one column can be the {role}.")
        return data

    def mapping(self) -> list[MappedColumn]:
        """Every previewed column with the role chosen for it, by number."""
        return [
            MappedColumn(key, self.cleaned_data[f"{key}-{c['number']}"], str(c["number"]))
            for key, file in self.preview["files"].items()
            for c in file["columns"]
        ]
