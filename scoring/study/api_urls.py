from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from scoring.study import api as study

urlpatterns = [
    path("studies/", study.StudyListApi.as_view(), name="api-studies"),
    path("studies/<id:study_id>/", study.StudyDetailApi.as_view(), name="api-study"),
    path(
        "studies/<id:study_id>/export.<str:fmt>",
        study.StudyExportApi.as_view(),
        name="api-study-export",
    ),
]
