from django.urls import path

from scoring.api import submissions

urlpatterns = [
    path(
        "leaderboards/<slug:slug>/submissions/",
        submissions.SubmissionListApi.as_view(),
        name="api-submissions",
    ),
    path(
        "submissions/<int:submission_id>/",
        submissions.SubmissionDetailApi.as_view(),
        name="api-submission",
    ),
]
