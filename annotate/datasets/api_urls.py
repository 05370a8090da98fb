from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.datasets import api as views

urlpatterns = [
    path("datasets/", views.DatasetListApi.as_view(), name="api-datasets"),
    path("datasets/<slug:slug>/", views.DatasetDetailApi.as_view(), name="api-dataset"),
    path(
        "datasets/<slug:slug>/deletion/",
        views.DatasetDeletionApi.as_view(),
        name="api-dataset-deletion",
    ),
    path("datasets/<slug:slug>/items/", views.DatasetItemsApi.as_view(), name="api-dataset-items"),
    path(
        "datasets/<slug:slug>/import/", views.DatasetImportApi.as_view(), name="api-dataset-import"
    ),
    path(
        "datasets/<slug:slug>/export/", views.DatasetExportApi.as_view(), name="api-dataset-export"
    ),
]
