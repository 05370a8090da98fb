from typing import cast

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_replace
from django.conf import settings
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView, View
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.views import APIView

import core.converters  # noqa: F401  (registers <id:…>)
from core.runs import views as run_views
from deltableu.health import healthz


def _docs(view_class, schema_url_name: str):
    """An API docs page. ReDoc and Swagger UI inject styles at run time, so these two pages (and
    no other) allow inline styles; a nonce would make browsers ignore 'unsafe-inline', hence a
    replaced style-src. Scripts stay nonce-only.

    OPTIONS answers as any page's does (its methods in Allow): DRF's answer describes an API
    view, and the Swagger page rendered that through its HTML template, a 500."""
    page_class = cast(
        type[APIView], type(view_class.__name__, (view_class,), {"options": View.options})
    )
    view = page_class.as_view(url_name=schema_url_name)
    return csp_replace({"style-src": [SELF, UNSAFE_INLINE]})(view)


# Each annotation app's pages and API (under /api/v1/), in the settings' dependency order.
APPS = [app for app in settings.INSTALLED_APPS if app.startswith("annotate.")]

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Browsers ask for /favicon.ico on every page that names no icon (the admin, the API docs).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("runs/", run_views.run_list, name="run-list"),
    path("admin/", admin.site.urls),
    *(path("", include(f"{app}.urls")) for app in APPS),
    path("leaderboards/", include("scoring.leaderboards.urls")),
    path("studies/", include("scoring.study.urls")),
    path("api/v1/", include("core.runs.urls")),
    *(path("api/v1/", include(f"{app}.api_urls")) for app in APPS),
    path("api/v1/", include("scoring.leaderboards.api_urls")),
    path("api/v1/", include("scoring.study.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", _docs(SpectacularSwaggerSplitView, "api-schema"), name="api-docs"),
    path("api/redoc/", _docs(SpectacularRedocView, "api-schema"), name="api-redoc"),
]
handler404 = "core.http.not_found"
handler400 = "core.http.bad_request"
