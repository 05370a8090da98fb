from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_replace
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.views import (
    accounts,
    campaign_dashboard,
    campaigns,
    datasets,
    judgments,
    mining,
    output_campaigns,
    rating,
    releases,
)
from core.runs import views as run_views
from deltableu.health import healthz


def _docs(view_class, schema_url_name: str):
    """An API docs page. ReDoc and Swagger UI inject styles at run time, so these two pages (and
    no other) allow inline styles; a nonce would make browsers ignore 'unsafe-inline', hence a
    replaced style-src. Scripts stay nonce-only."""
    view = view_class.as_view(url_name=schema_url_name)
    return csp_replace({"style-src": [SELF, UNSAFE_INLINE]})(view)


urlpatterns = [
    path("", datasets.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("runs/", run_views.run_list, name="run-list"),
    path("datasets/new/", datasets.dataset_new, name="dataset-new"),
    path("datasets/<slug:slug>/", datasets.dataset_detail, name="dataset-detail"),
    path("datasets/<slug:slug>/import/", datasets.dataset_import_view, name="dataset-import"),
    path("datasets/<slug:slug>/export.jsonl", datasets.dataset_export, name="dataset-export"),
    path("datasets/<slug:slug>/reveal/", datasets.dataset_reveal_view, name="dataset-reveal"),
    path("datasets/<slug:slug>/releases/new/", releases.release_new, name="release-new"),
    path("datasets/<slug:slug>/releases/diff/", releases.release_diff_view, name="release-diff"),
    path(
        "datasets/<slug:slug>/releases/<str:version>/",
        releases.release_detail,
        name="release-detail",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/publish/",
        releases.release_publish_view,
        name="release-publish",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/reveal/",
        releases.release_reveal_view,
        name="release-reveal",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/delete/",
        releases.release_delete_view,
        name="release-delete",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/archive/",
        releases.release_archive,
        name="release-archive",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/files/<str:name>",
        releases.release_file,
        name="release-file",
    ),
    path("datasets/<slug:slug>/campaigns/new/", campaigns.campaign_new, name="campaign-new"),
    path("r/<str:token>/", campaigns.campaign_join_view, name="campaign-join"),
    path(
        "campaigns/<id:campaign_id>/",
        campaign_dashboard.campaign_dashboard,
        name="campaign-dashboard",
    ),
    path(
        "campaigns/<id:campaign_id>/ratings.csv",
        campaign_dashboard.campaign_ratings_csv,
        name="campaign-ratings-csv",
    ),
    path(
        "campaigns/<id:campaign_id>/ratings.jsonl",
        campaign_dashboard.campaign_ratings_jsonl,
        name="campaign-ratings-jsonl",
    ),
    path("campaigns/<id:campaign_id>/rate/", rating.campaign_rate, name="campaign-rate"),
    path(
        "campaigns/<id:campaign_id>/rate/<id:rating_id>/",
        rating.campaign_answer,
        name="campaign-answer",
    ),
    path("campaigns/<id:campaign_id>/done/", rating.campaign_done, name="campaign-done"),
    path(
        "datasets/<slug:slug>/judgments/import/",
        judgments.judgments_upload,
        name="judgments-upload",
    ),
    path(
        "judgments/<id:judgment_set_id>/",
        judgments.judgment_set_detail,
        name="judgment-set-detail",
    ),
    path(
        "datasets/<slug:slug>/output-campaigns/new/",
        output_campaigns.output_campaign_new,
        name="output-campaign-new",
    ),
    path("o/<str:token>/", output_campaigns.output_campaign_join_view, name="output-campaign-join"),
    path(
        "output-campaigns/<id:campaign_id>/",
        output_campaigns.output_campaign_dashboard,
        name="output-campaign-dashboard",
    ),
    path(
        "output-campaigns/<id:campaign_id>/rate/",
        output_campaigns.output_campaign_rate,
        name="output-campaign-rate",
    ),
    path(
        "output-campaigns/<id:campaign_id>/rate/<id:rating_id>/",
        output_campaigns.output_campaign_answer,
        name="output-campaign-answer",
    ),
    path("datasets/<slug:slug>/mining/", mining.dataset_mining, name="dataset-mining"),
    path("datasets/<slug:slug>/mining/candidates/", mining.mined_review, name="mined-review"),
    path("corpora/", mining.corpus_list, name="corpus-list"),
    path("corpora/<id:corpus_id>/", mining.corpus_detail, name="corpus-detail"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", accounts.account, name="account"),
    path("accounts/token/", accounts.account_token, name="account-token"),
    path("accounts/invitations/", accounts.invitation_new, name="invitation-new"),
    path("invite/<str:token>/", accounts.signup, name="signup"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("core.runs.urls")),
    path("api/v1/", include("annotate.api.urls")),
    path("api/v1/", include("scoring.api.urls")),
    path("leaderboards/", include("scoring.urls")),
    path("studies/", include("scoring.urls_study")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", _docs(SpectacularSwaggerSplitView, "api-schema"), name="api-docs"),
    path("api/redoc/", _docs(SpectacularRedocView, "api-schema"), name="api-redoc"),
]
handler404 = "core.http.not_found"
