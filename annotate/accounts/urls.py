from django.contrib.auth import views as auth_views
from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.accounts import views as accounts

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", accounts.account, name="account"),
    path("accounts/token/", accounts.account_token, name="account-token"),
    path("accounts/invitations/", accounts.invitation_new, name="invitation-new"),
    path("invite/<str:token>/", accounts.signup, name="signup"),
]
