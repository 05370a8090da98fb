"""The forms of a campaign: the one that starts it, its assignment, and the check of the
completion codes its participants handed in."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from django import forms
from django.db.models import Field

from annotate.datasets.models import Dataset
from annotate.datasets.selectors import dataset_splits
from annotate.judgments.models import EvalSystem
from annotate.judgments.selectors import eval_systems
from annotate.rating.choices import ASSIGNMENT_SETTINGS, CAMPAIGN_SETTINGS
from annotate.rating.models import DEFAULT_ANCHORS, Campaign, Mode, Subject
from annotate.rating.selectors.completion import (
    MAX_CODE_CHARS,
    MAX_CODE_CHECKS,
    MAX_PARTICIPANT_CHARS,
)
from core.forms import RowsField
from core.lines import LineProblems
from core.tabular import CsvLineError, csv_cells

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
    systems = RowsField(
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
        labels = {  # the quality-control thresholds' field names read badly as labels
            "qc_min_seconds": "QC: seconds per rating",
            "qc_max_straightline": "QC: straight-lining share",
            "qc_alpha": "QC: significance level",
            "qc_min_controls": "QC: degraded texts before a verdict",
            "qc_max_repeat_difference": "QC: repeat difference",
        }

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
        self.fields["split"].queryset = dataset_splits(dataset=dataset)  # type: ignore[attr-defined]
        systems: Any = self.fields["systems"]
        systems.queryset = eval_systems(dataset=dataset)
        for name in DEFAULTS:
            self.fields[name].required = False
        order = ["name", "subject", "mode", "systems"]
        self.order_fields(order + [name for name in self.fields if name not in order])


class CampaignAssignmentForm(forms.ModelForm):
    """The owner's change of a running campaign's assignment and budget (its dashboard)."""

    class Meta:
        model = Campaign
        fields = list(ASSIGNMENT_SETTINGS)


def _line_values(line: str) -> list[str]:
    """A line's values: split at tabs, else commas, else semicolons (read as CSV, so quotes
    are honoured), else spaces — what a spreadsheet, a CSV file or a typed list gives. Raises
    `CsvLineError`."""
    separator = next((s for s in ("\t", ",", ";") if s in line), None)
    values = csv_cells(line, delimiter=separator) if separator else line.split()
    return [value.strip() for value in values]


def _is_header(values: list[str]) -> bool:
    return len(values) == 2 and values[1].lower().replace(" ", "").endswith("code")


def _line_problem(values: list[str]) -> tuple[str, str] | None:
    """(message, field) of what is wrong with a line's values, or None."""
    if len(values) != 2:
        return f"give a participant and a code (found {len(values)} values)", ""
    if not all(values):
        return "the participant or the code is empty", ""
    for name, value, longest in zip(
        ("participant", "code"), values, (MAX_PARTICIPANT_CHARS, MAX_CODE_CHARS), strict=True
    ):
        if len(value) > longest:
            return f"longer than {longest} characters", name
    return None


def code_lines_read(
    lines: Iterable[tuple[int, str]], problems: LineProblems
) -> list[tuple[str, str]]:
    """(participant, code) of each non-blank numbered line (`core.lines.read_lines` of a file,
    or a pasted text's lines); what is wrong goes to `problems` by line. A first line whose
    second value ends in "code" ("WorkerId,completion code") is a header. Reading stops past
    `MAX_CODE_CHECKS` codes."""
    entries: list[tuple[str, str]] = []
    for number, line in lines:
        try:
            values = _line_values(line)
        except CsvLineError as exc:
            problems.error(number, str(exc))
            continue
        if not any(values) or (not entries and not problems.problems and _is_header(values)):
            continue
        found = _line_problem(values)
        if found is not None:
            problems.error(number, *found)
        elif len(entries) == MAX_CODE_CHECKS:
            problems.error(number, f"more than {MAX_CODE_CHECKS:,} codes: check the rest apart")
            break
        else:
            entries.append((values[0], values[1]))
    if not entries and not problems.problems:
        problems.error(0, "no participant and code given")
    return entries


class CompletionCodesForm(forms.Form):
    """Pasted participants and codes, a pair a line (the dashboard's "Check codes" page)."""

    lines = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 12, "cols": 70, "spellcheck": "false"}),
        max_length=MAX_CODE_CHECKS * 100,
        label="Participants and their codes",
        help_text="One a line: the crowd id (or an account rater's username), then the code, "
        "separated by a tab, a comma or a space, as copied from the crowd platform's export. "
        f"At most {MAX_CODE_CHECKS:,} lines.",
    )

    def clean_lines(self) -> list[tuple[str, str]]:
        problems = LineProblems()
        text = self.cleaned_data["lines"]
        entries = code_lines_read(enumerate(text.splitlines(), start=1), problems)
        if problems.problems:
            raise forms.ValidationError([str(problem) for problem in problems.reported()])
        return entries
