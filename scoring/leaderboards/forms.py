from django import forms


class SubmissionForm(forms.Form):
    file = forms.FileField(
        help_text="Plain text, one output a line in the leaderboard's item order; or JSONL "
        '{"id": …, "hyp": …} a line.'
    )
    method = forms.CharField(max_length=200, help_text="A short name for your system.")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    url = forms.URLField(required=False, label="Paper or code URL", assume_scheme="https")
    team = forms.CharField(max_length=100, required=False, help_text="Empty: your own team.")
    is_public = forms.BooleanField(required=False, initial=True, label="Show on the leaderboard")
