from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from scoring.study import views as study

urlpatterns = [
    path("", study.study_list, name="study-list"),
    path("<id:study_id>/", study.study_detail, name="study-detail"),
    path("<id:study_id>/export.<str:fmt>", study.study_export, name="study-export"),
]
