"""The API is closed by default: every endpoint an anonymous visitor may call is one chosen to
be a public read, and those refuse anonymous writes."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.permissions import IsAuthenticated
from rest_framework.settings import api_settings
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

# Visible datasets, releases and boards: what anyone may read without an account. The schema,
# its docs pages and the token endpoint are open by their own design.
PUBLIC_READS = {
    "DatasetListApi",
    "DatasetDetailApi",
    "DatasetItemsApi",
    "DatasetExportApi",
    "ReleaseListApi",
    "ReleaseDetailApi",
    "ReleaseManifestApi",
    "ReleaseFileApi",
    "ReleaseArchiveApi",
    "ReleaseDiffApi",
    "LeaderboardListApi",
    "LeaderboardDetailApi",
    "LeaderboardExportApi",
    "LeaderboardCompareApi",
}
OPEN_BY_DESIGN = {
    "SpectacularAPIView",
    "SpectacularRedocView",
    "SpectacularSwaggerSplitView",
    "GuardedObtainAuthToken",
}


def api_views(patterns=None) -> set[type[APIView]]:
    """Every DRF view class the project routes to."""
    found: set[type[APIView]] = set()
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            found |= api_views(entry.url_patterns)
        elif isinstance(entry, URLPattern):
            cls = getattr(entry.callback, "cls", None)
            if isinstance(cls, type) and issubclass(cls, APIView):
                found.add(cls)
    return found


def anonymous_may(view: type[APIView], method: str) -> bool:
    request = APIRequestFactory().generic(method, "/")
    request.user = AnonymousUser()
    instance = view()
    return all(p().has_permission(request, instance) for p in instance.permission_classes)


def test_the_default_is_signed_in_users_only():
    default = api_settings.DEFAULT_PERMISSION_CLASSES
    assert default == [IsAuthenticated]


def test_only_the_chosen_public_reads_admit_anonymous_visitors():
    views = {view for view in api_views() if view.__name__ not in OPEN_BY_DESIGN}
    assert len(views) > 50
    readable = {view.__name__ for view in views if anonymous_may(view, "GET")}
    assert readable == PUBLIC_READS
    writable = {
        view.__name__
        for view in views
        for m in ("POST", "PATCH", "DELETE")
        if anonymous_may(view, m)
    }
    assert writable == set()
