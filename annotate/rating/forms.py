"""The forms of a campaign: the one that starts it, its assignment, and the check of the
completion codes its participants handed in."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.db.models import Field

from annotate.datasets.models import Dataset, Split
from annotate.judgments.models import EvalSystem
from annotate.rating.choices import ASSIGNMENT_SETTINGS, CAMPAIGN_SETTINGS
from annotate.rating.models import DEFAULT_ANCHORS, Campaign, Mode, Subject
from annotate.rating.selectors.completion import MAX_CODE_CHECKS
from core.lines import LineProblems

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


# Longest participant id and code a pasted line may hold (as the API's fields).
MAX_PARTICIPANT_CHARS = 150
MAX_CODE_CHARS = 64


def _line_values(line: str) -> list[str]:
    """A line's values: split at tabs, else commas, else semicolons, else spaces (what a
    spreadsheet, a CSV file or a hand-typed list gives), without surrounding quotes."""
    separator = next((s for s in ("\t", ",", ";") if s in line), None)
    values = line.split(separator) if separator else line.split()
    return [value.strip().strip('"').strip() for value in values]


def _is_header(values: list[str]) -> bool:
    return len(values) == 2 and values[1].lower().replace(" ", "").endswith("code")


def code_lines_read(text: str) -> tuple[list[tuple[str, str]], LineProblems]:
    """(participant, code) of each non-blank pasted line, and what is wrong at which line; a
    first line whose second value ends in "code" ("WorkerId,completion code") is a header."""
    entries: list[tuple[str, str]] = []
    problems = LineProblems()
    for number, line in enumerate(text.splitlines(), start=1):
        values = _line_values(line)
        if not any(values) or (not entries and not problems.problems and _is_header(values)):
            continue
        if len(values) != 2:
            problems.error(number, f"give a participant and a code (found {len(values)} values)")
        elif not all(values):
            problems.error(number, "the participant or the code is empty")
        elif len(values[0]) > MAX_PARTICIPANT_CHARS:
            problems.error(number, f"longer than {MAX_PARTICIPANT_CHARS} characters", "participant")
        elif len(values[1]) > MAX_CODE_CHARS:
            problems.error(number, f"longer than {MAX_CODE_CHARS} characters", "code")
        else:
            entries.append((values[0], values[1]))
    return entries, problems


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
        entries, problems = code_lines_read(self.cleaned_data["lines"])
        if problems.problems:
            raise forms.ValidationError([str(problem) for problem in problems.reported()])
        if not entries:
            raise forms.ValidationError("Paste at least one participant and code.")
        if len(entries) > MAX_CODE_CHECKS:
            raise forms.ValidationError(
                f"{len(entries):,} codes: check at most {MAX_CODE_CHECKS:,} at a time."
            )
        return entries
