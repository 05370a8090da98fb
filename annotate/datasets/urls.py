from django.urls import include, path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.datasets import views as datasets

# One dataset's pages.
dataset = [
    path("", datasets.dataset_detail, name="dataset-detail"),
    path("edit/", datasets.dataset_edit, name="dataset-edit"),
    path("delete/", datasets.dataset_delete_view, name="dataset-delete"),
    path("import/", datasets.dataset_import_view, name="dataset-import"),
    path("export.jsonl", datasets.dataset_export, name="dataset-export"),
]

urlpatterns = [
    path("", datasets.home, name="home"),
    path("datasets/new/", datasets.dataset_new, name="dataset-new"),
    path("datasets/<slug:slug>/", include(dataset)),
]
