from django.urls import include, path

import core.converters  # noqa: F401  (registers <id:…>)
from scoring.leaderboards.api import (
    eval_systems,
    human_evaluation,
    leaderboards,
    submissions,
    teams,
)

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
]

# One team of the user's.
team = [
    path("", teams.TeamDetailApi.as_view(), name="api-team"),
    path("invitation/", teams.TeamInvitationApi.as_view(), name="api-team-invitation"),
    path("leave/", teams.TeamLeaveApi.as_view(), name="api-team-leave"),
]

urlpatterns = [
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
]
