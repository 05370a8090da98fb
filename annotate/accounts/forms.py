"""Forms of accounts: sign-up and invitations."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.models import User

from annotate.accounts.models import Role


class SignupForm(forms.Form):
    username = forms.RegexField(
        regex=r"^[\w.@+-]{3,150}$",
        max_length=150,
        help_text="3 to 150 letters, digits and @/./+/-/_ only.",
        error_messages={"invalid": "Use 3 to 150 letters, digits and @/./+/-/_ only."},
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    email = forms.EmailField(
        required=False,
        help_text="Optional: only to reach you about your work.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        max_length=200,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password_again = forms.CharField(
        max_length=200,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        label="Password (again)",
    )

    def cleaned_data_for_service(self) -> dict[str, str]:
        """What invitation_accept takes (the repeated password checked here)."""
        return {key: self.cleaned_data[key] for key in ("username", "email", "password")}

    def clean(self):
        data = super().clean()
        if data.get("password") != data.get("password_again"):
            self.add_error("password_again", "The two passwords differ.")
        return data


class InvitationForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices, initial=Role.RATER)
    max_uses = forms.IntegerField(min_value=1, max_value=10_000, initial=20)
    note = forms.CharField(max_length=200, required=False)
    next_path = forms.CharField(
        max_length=200,
        required=False,
        label="Lands on",
        help_text="A path on this site, such as a campaign's link /r/…/ (empty: the home page).",
    )

    def __init__(self, *args, inviter: User, **kwargs):
        super().__init__(*args, **kwargs)
        if not inviter.is_staff:  # only staff invite researchers (services.invitation_create)
            role: Any = self.fields["role"]
            role.choices = [(Role.RATER, Role.RATER.label)]
