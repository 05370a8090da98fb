"""The forms of a judgments import: the files, then (when unsure) which column holds what."""

from __future__ import annotations

from django import forms

from annotate.datasets.models import SplitName
from annotate.judgments.bundles import ReadOptions, read_options
from annotate.judgments.cells import NONE, SEPARATORS
from annotate.judgments.columns import LAYOUTS, SINGLE_ROLES, MappedColumn
from core.forms import LimitedFileField

SEPARATOR_CHOICES = [
    ("", "detect"),
    *((name, SEPARATORS[name][0]) for name in SEPARATORS),
    (NONE, "one value a cell"),
]


def _file(help_text: str, required: bool = False) -> LimitedFileField:
    return LimitedFileField(
        limit_setting="IMPORT_MAX_BYTES", required=required, help_text=help_text
    )


class ReadOptionsForm(forms.Form):
    """How a single file's cells of several values are read (both steps of an import)."""

    original = forms.ChoiceField(
        choices=[("", "first (or as remembered)"), ("first", "first"), ("last", "last")],
        required=False,
        label="Original reference",
        help_text="Where the original reply is among an item's references (an original "
        "column overrides it).",
    )
    references_separator = forms.ChoiceField(
        choices=SEPARATOR_CHOICES, required=False, label="References separated by"
    )
    context_separator = forms.ChoiceField(
        choices=SEPARATOR_CHOICES, required=False, label="Context turns separated by"
    )
    wide = forms.ChoiceField(
        choices=[("", "a criterion"), ("systems", "a system (named by its header)")],
        required=False,
        label="Each score column is",
    )

    def options(self) -> ReadOptions:
        data = self.cleaned_data
        pairs = [
            (role, data[f"{role}_separator"])
            for role in ("references", "context")
            if data.get(f"{role}_separator")
        ]
        original, wide = data.get("original") or "", data.get("wide") or ""
        return read_options(separators=pairs, original=original, wide=wide)


class JudgmentUploadForm(ReadOptionsForm):
    name = forms.CharField(max_length=200, required=False, help_text="Default: the file's name.")
    split = forms.ChoiceField(choices=SplitName.choices, initial=SplitName.TEST)
    judgments = _file(
        "Per-judge scores (judge, id, system, criteria …), or one row per system × item of "
        "aggregated scores, with the response, references and context if you like",
        required=True,
    )
    systems = _file("System responses: system, id, response")
    contexts = _file("Contexts: id, depth, context")
    references = _file("References: id, ref1, ref2, …")


class ColumnsForm(ReadOptionsForm):
    """One select per previewed column, its guessed role chosen; how multi-valued cells are
    split; the staged upload's token."""

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
            {
                **file,
                "key": key,
                "selects": [self[f"{key}-{c['number']}"] for c in file["columns"]],
                "cells": [[_cell(c) for c in row] for row in file["split_rows"]],
            }
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


def _cell(value: object) -> dict[str, object]:
    """A previewed cell for the template: its text, or its values when it was split."""
    # Not "values": a template would call the dict's method of that name.
    if isinstance(value, list):
        return {"split": True, "parts": value}
    return {"split": False, "text": value}


def names_list(text: str) -> list[str]:
    """Metric names given as one comma-separated field (a form's, an API's, a command's)."""
    return [name.strip() for name in text.split(",") if name.strip()]


class MetricScoresForm(forms.Form):
    """A file of per-response scores of metrics computed elsewhere, for a judgment set."""

    file = _file("item id, system, then one column of scores per metric (TSV, CSV or JSONL)", True)
    metrics = forms.CharField(
        required=False,
        max_length=2000,
        help_text="The metric columns, comma-separated (empty: every column of numbers).",
    )
    lower_is_better = forms.CharField(
        required=False, max_length=2000, help_text="Metrics where lower is better, comma-separated."
    )
    description = forms.CharField(
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="How the scores were computed (model, version, prompt): their signature.",
    )

    def upload_arguments(self) -> dict:
        """What an upload service takes from the valid form (a judgment set's or a board's):
        the file's name and bytes, the metric columns, those where lower is better, and how
        they were computed."""
        data = self.cleaned_data
        return {
            "name": data["file"].name[-100:],
            "data": data["file"].read(),
            "metrics": names_list(data["metrics"]) or None,
            "lower_is_better": names_list(data["lower_is_better"]),
            "description": data["description"],
        }
