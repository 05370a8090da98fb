"""The API's map (mounted under /api/v1/ by deltableu/urls.py): one table per resource, each
naming the app's view that serves it."""

from django.urls import URLPattern, URLResolver, include, path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.accounts import api as accounts
from annotate.datasets import api as datasets
from annotate.judgments import api as judgments
from annotate.judgments import metrics_api as judgment_metrics
from annotate.mining import api as mining
from annotate.rating.api import campaign_lifecycle, campaign_quality, campaigns, rater
from annotate.rating.api.completion_codes import CampaignCompletionCodesApi
from annotate.releases import api as releases
from core.runs import api as runs
from core.token_view import GuardedObtainAuthToken
from scoring.leaderboards.api import (
    eval_systems,
    external_metrics,
    human_evaluation,
    leaderboards,
    submissions,
    teams,
)
from scoring.study import api as study

# One release of a dataset.
release = [
    path("", releases.ReleaseDetailApi.as_view(), name="api-release"),
    path("publish/", releases.ReleasePublishApi.as_view(), name="api-release-publish"),
    path("reveal/", releases.ReleaseRevealApi.as_view(), name="api-release-reveal"),
    path("manifest/", releases.ReleaseManifestApi.as_view(), name="api-release-manifest"),
    path("archive/", releases.ReleaseArchiveApi.as_view(), name="api-release-archive"),
    path("files/<str:name>", releases.ReleaseFileApi.as_view(), name="api-release-file"),
]

# One dataset: its items and files, then what the other apps do with it.
dataset: list[URLPattern | URLResolver] = [
    path("", datasets.DatasetDetailApi.as_view(), name="api-dataset"),
    path("deletion/", datasets.DatasetDeletionApi.as_view(), name="api-dataset-deletion"),
    path("items/", datasets.DatasetItemsApi.as_view(), name="api-dataset-items"),
    path("import/", datasets.DatasetImportApi.as_view(), name="api-dataset-import"),
    path("export/", datasets.DatasetExportApi.as_view(), name="api-dataset-export"),
    path("mining/", mining.MiningApi.as_view(), name="api-mining"),
    path("mining/candidates/", mining.CandidateListApi.as_view(), name="api-mined-candidates"),
    path(
        "mining/candidates/<id:reference_id>/",
        mining.CandidateDetailApi.as_view(),
        name="api-mined-candidate",
    ),
    path("judgments/", judgments.JudgmentImportApi.as_view(), name="api-judgments-import"),
    path(
        "judgments/preview/",
        judgments.JudgmentPreviewApi.as_view(),
        name="api-judgments-preview",
    ),
    path("reveal/", releases.DatasetRevealApi.as_view(), name="api-dataset-reveal"),
    path("releases/", releases.ReleaseListApi.as_view(), name="api-releases"),
    path("releases/diff/", releases.ReleaseDiffApi.as_view(), name="api-release-diff"),
    path("releases/<str:version>/", include(release)),
]

# What the owner does with one campaign (and its raters' next item and progress).
campaign = [
    path("", campaigns.CampaignDetailApi.as_view(), name="api-campaign"),
    path(
        "transition/",
        campaign_lifecycle.CampaignTransitionApi.as_view(),
        name="api-campaign-transition",
    ),
    path("delete/", campaign_lifecycle.CampaignDeleteApi.as_view(), name="api-campaign-delete"),
    path("next/", campaigns.CampaignNextApi.as_view(), name="api-campaign-next"),
    path("progress/", campaigns.CampaignProgressApi.as_view(), name="api-campaign-progress"),
    path(
        "ratings/", campaign_quality.CampaignRatingsExportApi.as_view(), name="api-campaign-ratings"
    ),
    path("quality/", campaign_quality.CampaignQualityApi.as_view(), name="api-campaign-quality"),
    path("results/", campaign_quality.CampaignResultsApi.as_view(), name="api-campaign-results"),
    path("weights/", campaign_quality.CampaignWeightsApi.as_view(), name="api-campaign-weights"),
    path("completion-codes/", CampaignCompletionCodesApi.as_view(), name="api-campaign-codes"),
]

# One leaderboard.
board = [
    path("", leaderboards.LeaderboardDetailApi.as_view(), name="api-leaderboard"),
    path("compare/", leaderboards.LeaderboardCompareApi.as_view(), name="api-leaderboard-compare"),
    path("export/", leaderboards.LeaderboardExportApi.as_view(), name="api-leaderboard-export"),
    path(
        "export.<str:format>",
        leaderboards.LeaderboardExportApi.as_view(),
        name="api-leaderboard-export-as",
    ),
    path("submissions/", submissions.SubmissionListApi.as_view(), name="api-submissions"),
    path(
        "eval-systems/",
        eval_systems.LeaderboardEvalSystemsApi.as_view(),
        name="api-leaderboard-eval-systems",
    ),
    path(
        "human-evaluation/",
        human_evaluation.LeaderboardHumanEvaluationApi.as_view(),
        name="api-leaderboard-human-evaluation",
    ),
    path("metrics/", external_metrics.LeaderboardMetricsApi.as_view(), name="api-board-metrics"),
    path(
        "metrics/<id:metric_id>/",
        external_metrics.LeaderboardMetricDetailApi.as_view(),
        name="api-board-metric",
    ),
]

# One team of the user's.
team = [
    path("", teams.TeamDetailApi.as_view(), name="api-team"),
    path("invitation/", teams.TeamInvitationApi.as_view(), name="api-team-invitation"),
    path("leave/", teams.TeamLeaveApi.as_view(), name="api-team-leave"),
]

# One run of the run engine (anything long: indexing, scoring, a study).
run = [
    path("", runs.RunDetailApi.as_view(), name="api-run"),
    path("cancel/", runs.RunCancelApi.as_view(), name="api-run-cancel"),
    path("retry/", runs.RunRetryApi.as_view(), name="api-run-retry"),
]

urlpatterns = [
    path("auth/token/", GuardedObtainAuthToken.as_view(), name="api-token"),
    path("me/", accounts.MeApi.as_view(), name="api-me"),
    path("me/campaigns/", rater.MyCampaignsApi.as_view(), name="api-my-campaigns"),
    path("datasets/", datasets.DatasetListApi.as_view(), name="api-datasets"),
    path("datasets/<slug:slug>/", include(dataset)),
    path("corpora/", mining.CorpusListApi.as_view(), name="api-corpora"),
    path("corpora/<id:corpus_id>/", mining.CorpusDetailApi.as_view(), name="api-corpus"),
    path(
        "judgments/<id:judgment_set_id>/",
        judgments.JudgmentSetDetailApi.as_view(),
        name="api-judgment-set",
    ),
    path(
        "judgments/<id:judgment_set_id>/metrics/",
        judgment_metrics.JudgmentSetMetricsApi.as_view(),
        name="api-judgment-set-metrics",
    ),
    path(
        "judgments/<id:judgment_set_id>/summary/",
        judgments.JudgmentSetSummaryApi.as_view(),
        name="api-judgment-set-summary",
    ),
    path("releases/import/", releases.ReleaseImportApi.as_view(), name="api-release-import"),
    path("campaigns/", campaigns.CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/join/", campaigns.CampaignJoinApi.as_view(), name="api-campaign-join"),
    path("campaigns/<id:campaign_id>/", include(campaign)),
    path("ratings/<id:rating_id>/", campaigns.RatingAnswerApi.as_view(), name="api-rating"),
    path("ratings/<id:rating_id>/undo/", rater.RatingUndoApi.as_view(), name="api-rating-undo"),
    path("leaderboards/", leaderboards.LeaderboardListApi.as_view(), name="api-leaderboards"),
    path("leaderboards/<slug:slug>/", include(board)),
    path("teams/", teams.TeamListApi.as_view(), name="api-teams"),
    path("teams/join/", teams.TeamJoinApi.as_view(), name="api-team-join"),
    path("teams/<id:team_id>/", include(team)),
    path(
        "submissions/<id:submission_id>/",
        submissions.SubmissionDetailApi.as_view(),
        name="api-submission",
    ),
    path("studies/", study.StudyListApi.as_view(), name="api-studies"),
    path("studies/<id:study_id>/", study.StudyDetailApi.as_view(), name="api-study"),
    path(
        "studies/<id:study_id>/export.<str:fmt>",
        study.StudyExportApi.as_view(),
        name="api-study-export",
    ),
    path("runs/", runs.RunListApi.as_view(), name="api-runs"),
    path("runs/<id:run_id>/", include(run)),
]
