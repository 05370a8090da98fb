from django.urls import path

from scoring.views import study

urlpatterns = [
    path("", study.study_list, name="study-list"),
    path("<int:study_id>/", study.study_detail, name="study-detail"),
    path("<int:study_id>/export.<str:fmt>", study.study_export, name="study-export"),
]
