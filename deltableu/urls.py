"""The site map: every page's URL, one table per part of the site, and where the API
(deltableu/api_urls.py) and its documentation are mounted.

The routes live here rather than in each app so that the whole site reads in one place: a
dataset's pages come from five apps, and a clash or an order that matters shows here at once.
The views, and everything behind them, stay in their apps."""

from typing import cast

from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_replace
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import URLPattern, URLResolver, include, path
from django.views.generic import RedirectView, View
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.views import APIView

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.accounts import views as accounts
from annotate.datasets import views as datasets
from annotate.judgments import views as judgments
from annotate.mining import views as mining
from annotate.rating.views import campaign_dashboard, campaigns, lifecycle, rater, rating
from annotate.releases import views as releases
from core.runs import views as runs
from deltableu.health import healthz
from scoring.leaderboards.views import (
    compare,
    human_evaluation,
    leaderboards,
    manage,
    submissions,
    teams,
)
from scoring.study import views as study


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


# The user's account, and the invitations that make one.
account = [
    path("login/", accounts.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", accounts.account, name="account"),
    path("token/", accounts.account_token, name="account-token"),
    path("invitations/", accounts.invitation_new, name="invitation-new"),
]

# One release of a dataset.
release = [
    path("", releases.release_detail, name="release-detail"),
    path("publish/", releases.release_publish_view, name="release-publish"),
    path("reveal/", releases.release_reveal_view, name="release-reveal"),
    path("delete/", releases.release_delete_view, name="release-delete"),
    path("archive/", releases.release_archive, name="release-archive"),
    path("files/<str:name>", releases.release_file, name="release-file"),
]

# One dataset: its own pages, then what the other apps do with it.
dataset: list[URLPattern | URLResolver] = [
    path("", datasets.dataset_detail, name="dataset-detail"),
    path("edit/", datasets.dataset_edit, name="dataset-edit"),
    path("delete/", datasets.dataset_delete_view, name="dataset-delete"),
    path("import/", datasets.dataset_import_view, name="dataset-import"),
    path("export.jsonl", datasets.dataset_export, name="dataset-export"),
    path("mining/", mining.dataset_mining, name="dataset-mining"),
    path("mining/candidates/", mining.mined_review, name="mined-review"),
    path("judgments/import/", judgments.judgments_upload, name="judgments-upload"),
    path(
        "judgments/import/columns/",
        judgments.judgments_upload_columns,
        name="judgments-upload-columns",
    ),
    path("campaigns/new/", campaigns.campaign_new, name="campaign-new"),
    path("reveal/", releases.dataset_reveal_view, name="dataset-reveal"),
    path("releases/new/", releases.release_new, name="release-new"),
    path("releases/diff/", releases.release_diff_view, name="release-diff"),
    path("releases/<str:version>/", include(release)),
]

# One corpus to mine candidates from.
corpus = [
    path("", mining.corpus_detail, name="corpus-detail"),
    path("delete/", mining.corpus_delete_view, name="corpus-delete"),
]

# One campaign: the owner's pages, then a rater's.
campaign = [
    path("", campaign_dashboard.campaign_dashboard, name="campaign-dashboard"),
    path("ratings.csv", campaign_dashboard.campaign_ratings_csv, name="campaign-ratings-csv"),
    path("ratings.jsonl", campaign_dashboard.campaign_ratings_jsonl, name="campaign-ratings-jsonl"),
    path("codes/", campaign_dashboard.campaign_codes, name="campaign-codes"),
    path("transition/", lifecycle.campaign_transition_view, name="campaign-transition"),
    path("assignment/", lifecycle.campaign_assignment_view, name="campaign-assignment"),
    path("delete/", lifecycle.campaign_delete_view, name="campaign-delete"),
    path("rate/", rating.campaign_rate, name="campaign-rate"),
    path("rate/<id:rating_id>/", rating.campaign_answer, name="campaign-answer"),
    path("rate/<id:rating_id>/undo/", rater.campaign_undo, name="campaign-undo"),
    path("done/", rating.campaign_done, name="campaign-done"),
]

# One leaderboard's pages and files.
board = [
    path("", leaderboards.leaderboard_detail, name="leaderboard-detail"),
    path("compare/", compare.leaderboard_compare, name="leaderboard-compare"),
    path("settings/", manage.leaderboard_settings, name="leaderboard-settings"),
    path(
        "settings/metrics/",
        manage.leaderboard_metrics_upload,
        name="leaderboard-metrics-upload",
    ),
    path(
        "settings/metrics/<id:metric_id>/delete/",
        manage.leaderboard_metric_delete_view,
        name="leaderboard-metric-delete",
    ),
    path("export.<str:fmt>", leaderboards.leaderboard_export, name="leaderboard-export"),
    path("items.jsonl", leaderboards.leaderboard_items, name="leaderboard-items"),
    path("references.jsonl", leaderboards.leaderboard_references, name="leaderboard-references"),
    path(
        "human-evaluation/",
        human_evaluation.leaderboard_human_evaluation,
        name="leaderboard-human-evaluation",
    ),
    path("submit/", submissions.submission_new, name="submission-new"),
]

# One team of the user's.
team = [
    path("", teams.team_detail, name="team-detail"),
    path("invitation/", teams.team_invitation, name="team-invitation"),
    path("leave/", teams.team_leave_view, name="team-leave"),
]

# One submission to a leaderboard.
submission = [
    path("", submissions.submission_detail, name="submission-detail"),
    path("change/", manage.submission_change_view, name="submission-change"),
]

# The scoring side: leaderboards, teams and submissions. "new/" and "teams/" come before a
# board's slug, so that neither is ever read as one.
scoring: list[URLPattern | URLResolver] = [
    path("", leaderboards.leaderboard_list, name="leaderboard-list"),
    path("new/", leaderboards.leaderboard_new, name="leaderboard-new"),
    path("teams/", teams.team_list, name="team-list"),
    path("teams/join/<str:token>/", teams.team_join_view, name="team-join"),
    path("teams/<id:team_id>/", include(team)),
    path("<slug:slug>/", include(board)),
    path("submissions/<id:submission_id>/", include(submission)),
]

# The metric–human agreement studies.
studies = [
    path("", study.study_list, name="study-list"),
    path("<id:study_id>/", study.study_detail, name="study-detail"),
    path("<id:study_id>/export.<str:fmt>", study.study_export, name="study-export"),
]

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Browsers ask for /favicon.ico on every page that names no icon (the admin, the API docs).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    path("", datasets.home, name="home"),
    path("accounts/", include(account)),
    path("invite/<str:token>/", accounts.signup, name="signup"),
    path("datasets/new/", datasets.dataset_new, name="dataset-new"),
    path("datasets/<slug:slug>/", include(dataset)),
    path("corpora/", mining.corpus_list, name="corpus-list"),
    path("corpora/<id:corpus_id>/", include(corpus)),
    path(
        "judgments/<id:judgment_set_id>/", judgments.judgment_set_detail, name="judgment-set-detail"
    ),
    path(
        "judgments/<id:judgment_set_id>/metrics/",
        judgments.judgment_set_metrics_upload,
        name="judgment-set-metrics",
    ),
    path(
        "judgments/<id:judgment_set_id>/summary/",
        judgments.judgment_set_summary_page,
        name="judgment-set-summary",
    ),
    path(
        "judgments/<id:judgment_set_id>/summary.csv",
        judgments.judgment_set_summary_csv,
        name="judgment-set-summary-csv",
    ),
    path("r/<str:token>/", campaigns.campaign_join_view, name="campaign-join"),
    path("campaigns/<id:campaign_id>/", include(campaign)),
    path("me/campaigns/", rater.my_campaigns, name="my-campaigns"),
    path("runs/", runs.run_list, name="run-list"),
    path("leaderboards/", include(scoring)),
    path("studies/", include(studies)),
    path("api/v1/", include("deltableu.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", _docs(SpectacularSwaggerSplitView, "api-schema"), name="api-docs"),
    path("api/redoc/", _docs(SpectacularRedocView, "api-schema"), name="api-redoc"),
]
handler404 = "core.http.not_found"
handler400 = "core.http.bad_request"
