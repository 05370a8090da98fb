from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from scoring.leaderboards.api import (
    eval_systems,
    human_evaluation,
    leaderboards,
    submissions,
    teams,
)

urlpatterns = [
    path("leaderboards/", leaderboards.LeaderboardListApi.as_view(), name="api-leaderboards"),
    path(
        "leaderboards/<slug:slug>/",
        leaderboards.LeaderboardDetailApi.as_view(),
        name="api-leaderboard",
    ),
    path(
        "leaderboards/<slug:slug>/compare/",
        leaderboards.LeaderboardCompareApi.as_view(),
        name="api-leaderboard-compare",
    ),
    path(
        "leaderboards/<slug:slug>/export/",
        leaderboards.LeaderboardExportApi.as_view(),
        name="api-leaderboard-export",
    ),
    path(
        "leaderboards/<slug:slug>/export.<str:format>",
        leaderboards.LeaderboardExportApi.as_view(),
        name="api-leaderboard-export-as",
    ),
    path(
        "leaderboards/<slug:slug>/submissions/",
        submissions.SubmissionListApi.as_view(),
        name="api-submissions",
    ),
    path(
        "leaderboards/<slug:slug>/eval-systems/",
        eval_systems.LeaderboardEvalSystemsApi.as_view(),
        name="api-leaderboard-eval-systems",
    ),
    path(
        "leaderboards/<slug:slug>/human-evaluation/",
        human_evaluation.LeaderboardHumanEvaluationApi.as_view(),
        name="api-leaderboard-human-evaluation",
    ),
    path("teams/", teams.TeamListApi.as_view(), name="api-teams"),
    path("teams/join/", teams.TeamJoinApi.as_view(), name="api-team-join"),
    path("teams/<id:team_id>/", teams.TeamDetailApi.as_view(), name="api-team"),
    path(
        "teams/<id:team_id>/invitation/",
        teams.TeamInvitationApi.as_view(),
        name="api-team-invitation",
    ),
    path("teams/<id:team_id>/leave/", teams.TeamLeaveApi.as_view(), name="api-team-leave"),
    path(
        "submissions/<id:submission_id>/",
        submissions.SubmissionDetailApi.as_view(),
        name="api-submission",
    ),
]
