"""Pages of the scoring side: leaderboards and submissions."""

from django.urls import path

from scoring.views import submissions

urlpatterns = [
    path("<slug:slug>/submit/", submissions.submission_new, name="submission-new"),
    path(
        "submissions/<int:submission_id>/", submissions.submission_detail, name="submission-detail"
    ),
]
