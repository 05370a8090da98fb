from django.urls import path

from core.runs import api

urlpatterns = [
    path("runs/", api.RunListApi.as_view(), name="api-runs"),
    path("runs/<id:run_id>/", api.RunDetailApi.as_view(), name="api-run"),
    path("runs/<id:run_id>/cancel/", api.RunCancelApi.as_view(), name="api-run-cancel"),
    path("runs/<id:run_id>/retry/", api.RunRetryApi.as_view(), name="api-run-retry"),
]
