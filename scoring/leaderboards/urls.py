"""Pages of the scoring side: leaderboards and submissions."""

from django.urls import include, path

import core.converters  # noqa: F401  (registers <id:…>)
from scoring.leaderboards.views import (
    compare,
    human_evaluation,
    leaderboards,
    manage,
    submissions,
    teams,
)

# One leaderboard's pages and files.
board = [
    path("", leaderboards.leaderboard_detail, name="leaderboard-detail"),
    path("compare/", compare.leaderboard_compare, name="leaderboard-compare"),
    path("settings/", manage.leaderboard_settings, name="leaderboard-settings"),
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

urlpatterns = [
    path("", leaderboards.leaderboard_list, name="leaderboard-list"),
    path("new/", leaderboards.leaderboard_new, name="leaderboard-new"),
    path("teams/", teams.team_list, name="team-list"),
    path("teams/join/<str:token>/", teams.team_join_view, name="team-join"),
    path("teams/<id:team_id>/", include(team)),
    path("<slug:slug>/", include(board)),
    path(
        "submissions/<id:submission_id>/", submissions.submission_detail, name="submission-detail"
    ),
    path(
        "submissions/<id:submission_id>/change/",
        manage.submission_change_view,
        name="submission-change",
    ),
]
