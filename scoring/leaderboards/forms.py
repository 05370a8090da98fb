from django import forms

from scoring.leaderboards.models import MAX_COUNTED_PER_TEAM, MAX_QUOTA, Listing
from scoring.leaderboards.services.standing import REASON_MAX

MB = 1024 * 1024


class SubmissionForm(forms.Form):
    file = forms.FileField(
        help_text="Plain text, one output a line in the leaderboard's item order; or JSONL "
        '{"id": …, "hyp": …} a line.'
    )
    method = forms.CharField(max_length=200, help_text="A short name for your system.")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    url = forms.URLField(required=False, label="Paper or code URL", assume_scheme="https")
    team = forms.ChoiceField(
        required=False, help_text="Make a team, or join one, under Your teams."
    )
    is_public = forms.BooleanField(required=False, initial=True, label="Show on the leaderboard")

    def __init__(self, *args, team_names: list[str], username: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        own = [("", f"Just me (a team named {username})")]
        # A user's own one-person team is offered as "just me", not twice.
        others = [(name, name) for name in team_names if name != username]
        self.fields["team"].choices = own + others  # type: ignore[attr-defined]


def _yes_no() -> forms.TypedChoiceField:
    return forms.TypedChoiceField(
        choices=[("yes", "yes"), ("no", "no")],
        coerce=lambda value: value == "yes",
        required=False,
        empty_value=None,
    )


class SubmissionChangeForm(forms.Form):
    """The buttons of a submission's page: each posts the one field it changes."""

    listing = forms.TypedChoiceField(choices=Listing.choices, required=False, empty_value=None)
    reason = forms.CharField(max_length=REASON_MAX, required=False)
    counts = _yes_no()
    is_baseline = _yes_no()

    def clean(self):
        cleaned = super().clean()
        if all(cleaned.get(name) is None for name in ("listing", "counts", "is_baseline")):
            raise forms.ValidationError("Choose what to change: listing, counts or is_baseline.")
        return cleaned


class TeamForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="Shown on the leaderboards beside each entry.")


class LeaderboardSettingsForm(forms.Form):
    name = forms.CharField(max_length=200)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    is_open = forms.BooleanField(required=False, label="Accepting submissions")
    is_public = forms.BooleanField(required=False, label="Public leaderboard")
    daily_quota = forms.IntegerField(min_value=1, max_value=MAX_QUOTA)
    total_quota = forms.IntegerField(min_value=1, max_value=MAX_QUOTA)
    max_upload_mb = forms.FloatField(
        min_value=0.001,
        max_value=2047,
        label="Upload size limit (MB)",
        help_text="Larger files are refused before they are read, with this limit named.",
    )
    counted_per_team = forms.IntegerField(
        min_value=1,
        max_value=MAX_COUNTED_PER_TEAM,
        label="Submissions that count per team",
        help_text="Test leaderboards: how many of its submissions a team may pick to count.",
    )

    @classmethod
    def initial_of(cls, board) -> dict:
        fields = {name: getattr(board, name) for name in cls.base_fields if name != "max_upload_mb"}
        return {**fields, "max_upload_mb": round(board.max_upload_bytes / MB, 3)}

    def settings(self) -> dict:
        """The cleaned fields as the service names them."""
        fields = dict(self.cleaned_data)
        fields["max_upload_bytes"] = round(fields.pop("max_upload_mb") * MB)
        return fields
