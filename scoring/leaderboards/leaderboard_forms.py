"""The forms to open a leaderboard on a published release and to start a human evaluation of
its submissions."""

from __future__ import annotations

from django import forms
from django.contrib.auth.models import User

from annotate.datasets.models import SplitName
from annotate.rating.models import Mode
from annotate.releases.models import Release
from core.forms import RowsField
from scoring.leaderboards.models import Leaderboard, Submission
from scoring.leaderboards.selectors.leaderboards import releases_for_leaderboards
from scoring.leaderboards.selectors.submissions import submissions_finished
from scoring.metrics import entries

# Paths under /leaderboards/ that a leaderboard's slug would shadow.
RESERVED_SLUGS = frozenset({"new", "submissions", "teams"})


class LeaderboardForm(forms.Form):
    release = forms.ModelChoiceField(queryset=Release.objects.none())
    split = forms.ChoiceField(choices=SplitName.choices)
    name = forms.CharField(max_length=200)
    # Help text is rendered as HTML (Django marks it safe): no raw angle brackets in it.
    slug = forms.SlugField(
        max_length=100,
        help_text="Letters, digits and hyphens; its address is /leaderboards/your-slug/.",
    )
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    primary_metric = forms.ChoiceField(initial="dbleu")
    metric_options = forms.JSONField(
        required=False,
        initial=dict,
        help_text='Options of the primary metric, e.g. {"definition": "paper", "max_order": 4}.',
    )
    companion_metrics = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, initial=["bleu", "sbleu"]
    )
    daily_quota = forms.IntegerField(min_value=1, initial=5)
    total_quota = forms.IntegerField(min_value=1, initial=100)
    is_public = forms.BooleanField(required=False, initial=True, label="Public leaderboard")

    def __init__(self, *args, user: User, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["release"].queryset = releases_for_leaderboards(user=user)  # type: ignore[attr-defined]
        choices = [(name, entry.display_name) for name, entry in entries().items()]
        self.fields["primary_metric"].choices = choices  # type: ignore[attr-defined]
        self.fields["companion_metrics"].choices = choices  # type: ignore[attr-defined]

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"]
        if slug in RESERVED_SLUGS:
            raise forms.ValidationError(f"{slug!r} is taken by a page; choose another.")
        return slug

    def clean_metric_options(self) -> dict:
        options = self.cleaned_data["metric_options"] or {}
        if not isinstance(options, dict):
            raise forms.ValidationError("Give a JSON object of option names and values.")
        return options


class HumanEvaluationForm(forms.Form):
    """Finished submissions to show people, and how (the API's fields, on the page)."""

    submissions = RowsField(queryset=Submission.objects.none(), widget=forms.CheckboxSelectMultiple)
    mode = forms.ChoiceField(choices=Mode.choices, initial=Mode.LIKERT)
    ratings_per_unit = forms.IntegerField(min_value=1, max_value=50, initial=3)
    name = forms.CharField(max_length=200, required=False, help_text="Default: Human evaluation: …")

    def __init__(self, *args, leaderboard: Leaderboard, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["submissions"]
        field.queryset = submissions_finished(leaderboard=leaderboard)  # type: ignore[attr-defined]
        field.label_from_instance = lambda s: f"{s.team.name}: {s.method} (#{s.pk})"  # type: ignore[attr-defined]
