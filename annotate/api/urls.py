from django.urls import path
from rest_framework.authtoken.views import obtain_auth_token

from annotate.api import jobs, mining, views

urlpatterns = [
    path("auth/token/", obtain_auth_token, name="api-token"),
    path("me/", views.MeApi.as_view(), name="api-me"),
    path("datasets/", views.DatasetListApi.as_view(), name="api-datasets"),
    path("datasets/<slug:slug>/", views.DatasetDetailApi.as_view(), name="api-dataset"),
    path("datasets/<slug:slug>/items/", views.DatasetItemsApi.as_view(), name="api-dataset-items"),
    path(
        "datasets/<slug:slug>/import/", views.DatasetImportApi.as_view(), name="api-dataset-import"
    ),
    path(
        "datasets/<slug:slug>/export/", views.DatasetExportApi.as_view(), name="api-dataset-export"
    ),
    path("datasets/<slug:slug>/mining/", mining.MiningApi.as_view(), name="api-mining"),
    path(
        "datasets/<slug:slug>/mining/candidates/",
        mining.CandidateListApi.as_view(),
        name="api-mined-candidates",
    ),
    path(
        "datasets/<slug:slug>/mining/candidates/<int:reference_id>/",
        mining.CandidateDetailApi.as_view(),
        name="api-mined-candidate",
    ),
    path("corpora/", mining.CorpusListApi.as_view(), name="api-corpora"),
    path("corpora/<int:corpus_id>/", mining.CorpusDetailApi.as_view(), name="api-corpus"),
    path("jobs/<int:job_id>/", jobs.JobDetailApi.as_view(), name="api-job"),
    path("jobs/<int:job_id>/cancel/", jobs.JobCancelApi.as_view(), name="api-job-cancel"),
]
