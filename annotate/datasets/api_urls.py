from django.urls import include, path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.datasets import api as views

# One dataset.
dataset = [
    path("", views.DatasetDetailApi.as_view(), name="api-dataset"),
    path("deletion/", views.DatasetDeletionApi.as_view(), name="api-dataset-deletion"),
    path("items/", views.DatasetItemsApi.as_view(), name="api-dataset-items"),
    path("import/", views.DatasetImportApi.as_view(), name="api-dataset-import"),
    path("export/", views.DatasetExportApi.as_view(), name="api-dataset-export"),
]

urlpatterns = [
    path("datasets/", views.DatasetListApi.as_view(), name="api-datasets"),
    path("datasets/<slug:slug>/", include(dataset)),
]
