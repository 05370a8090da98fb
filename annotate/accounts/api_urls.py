from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.accounts import api as views
from core.token_view import GuardedObtainAuthToken

urlpatterns = [
    path("auth/token/", GuardedObtainAuthToken.as_view(), name="api-token"),
    path("me/", views.MeApi.as_view(), name="api-me"),
]
