"""Forms of accounts: sign-up and invitations."""

from __future__ import annotations

from django import forms

from annotate.accounts.models import Role


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
