"""Pages of the scoring side: leaderboards and submissions."""

from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from scoring.leaderboards.views import (
    compare,
    human_evaluation,
    leaderboards,
    manage,
    submissions,
    teams,
)

urlpatterns = [
    path("", leaderboards.leaderboard_list, name="leaderboard-list"),
    path("new/", leaderboards.leaderboard_new, name="leaderboard-new"),
    path("teams/", teams.team_list, name="team-list"),
    path("teams/join/<str:token>/", teams.team_join_view, name="team-join"),
    path("teams/<id:team_id>/", teams.team_detail, name="team-detail"),
    path("teams/<id:team_id>/invitation/", teams.team_invitation, name="team-invitation"),
    path("teams/<id:team_id>/leave/", teams.team_leave_view, name="team-leave"),
    path("<slug:slug>/", leaderboards.leaderboard_detail, name="leaderboard-detail"),
    path("<slug:slug>/compare/", compare.leaderboard_compare, name="leaderboard-compare"),
    path("<slug:slug>/settings/", manage.leaderboard_settings, name="leaderboard-settings"),
    path(
        "<slug:slug>/export.<str:fmt>", leaderboards.leaderboard_export, name="leaderboard-export"
    ),
    path("<slug:slug>/items.jsonl", leaderboards.leaderboard_items, name="leaderboard-items"),
    path(
        "<slug:slug>/references.jsonl",
        leaderboards.leaderboard_references,
        name="leaderboard-references",
    ),
    path(
        "<slug:slug>/human-evaluation/",
        human_evaluation.leaderboard_human_evaluation,
        name="leaderboard-human-evaluation",
    ),
    path("<slug:slug>/submit/", submissions.submission_new, name="submission-new"),
    path(
        "submissions/<id:submission_id>/", submissions.submission_detail, name="submission-detail"
    ),
    path(
        "submissions/<id:submission_id>/change/",
        manage.submission_change_view,
        name="submission-change",
    ),
]
