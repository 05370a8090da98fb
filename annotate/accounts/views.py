"""Account pages: sign-up (or log-in) by invitation, the account page with the API token and
invitations."""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotate.accounts.forms import InvitationForm, SignupForm
from annotate.accounts.selectors import (
    api_token_of,
    invitation_destination,
    invitation_get_by_token,
    invitations_sent,
    profile_of,
    user_is_researcher,
)
from annotate.accounts.services import (
    invitation_accept,
    invitation_create,
    token_regenerate,
)
from core.auth_request import AuthenticatedRequest
from core.forms import form_call
from core.guessing import INVITATION, LOCKED_OUT, guess_failed, guess_locked_out
from core.refusals import succeeded


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: a new person makes an account here; someone with an account logs in
    instead; either way they land where the invitation points."""
    if guess_locked_out(request, INVITATION):
        locked = {"message": LOCKED_OUT}
        return render(request, "registration/invitation_invalid.html", locked, status=429)
    invitation = invitation_get_by_token(token=token)
    if invitation is None or not invitation.is_usable:
        if invitation is None:  # a guess; a used-up link is not
            guess_failed(request, INVITATION)
        return render(request, "registration/invitation_invalid.html", status=404)
    destination = invitation_destination(invitation=invitation)
    # Someone already logged in goes on as themselves: the link's uses are for new accounts.
    form = SignupForm(request.POST or None) if not request.user.is_authenticated else None
    if request.method == "POST" and form is not None and form.is_valid():
        user = form_call(form, invitation_accept, token=token, **form.cleaned_data_for_service())
        if user is not None:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.username}.")
            return redirect(destination)
    context = {"form": form, "invitation": invitation, "destination": destination}
    return render(request, "registration/signup.html", context)


# A username as Django's validator allows it: the names a link asks for are shown, never looked up
# (a lookup would tell anyone which accounts exist).
USERNAME = re.compile(r"^[\w.@+-]{1,150}$")


class LoginView(auth_views.LoginView):
    """Django's log-in form, which also says who is signed in already and, for a link to a page
    that belongs to other logins (the demo tour's `login_as`), whom to sign in as."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        names = self.request.GET.get("login_as", "").split(",")
        context["wanted_logins"] = [name for name in names if USERNAME.match(name)][:5]
        return context


@login_required
def account(request: AuthenticatedRequest) -> HttpResponse:
    profile = profile_of(user=request.user)
    token = api_token_of(user=request.user)
    context = {
        "profile": profile,
        "token": token,
        "can_invite": user_is_researcher(request.user),
        "invitations": invitations_sent(user=request.user),
        "invitation_form": InvitationForm(inviter=request.user),
    }
    return render(request, "registration/account.html", context)


@login_required
@require_POST
def account_token(request: AuthenticatedRequest) -> HttpResponse:
    token_regenerate(user=request.user)
    messages.success(request, "A new API token was made; the old one no longer works.")
    return redirect("account")


@login_required
@require_POST
def invitation_new(request: AuthenticatedRequest) -> HttpResponse:
    if not user_is_researcher(request.user):
        raise PermissionDenied("Only researchers and staff can invite people.")
    form = InvitationForm(request.POST, inviter=request.user)
    if form.is_valid():
        if succeeded(request, invitation_create, created_by=request.user, **form.cleaned_data):
            messages.success(request, "Invitation created: copy its link below.")
    else:
        messages.error(request, "Invitation not created: " + form.errors.as_text())
    return redirect("account")
