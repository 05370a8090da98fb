from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.datasets import views as datasets

urlpatterns = [
    path("", datasets.home, name="home"),
    path("datasets/new/", datasets.dataset_new, name="dataset-new"),
    path("datasets/<slug:slug>/", datasets.dataset_detail, name="dataset-detail"),
    path("datasets/<slug:slug>/edit/", datasets.dataset_edit, name="dataset-edit"),
    path("datasets/<slug:slug>/delete/", datasets.dataset_delete_view, name="dataset-delete"),
    path("datasets/<slug:slug>/import/", datasets.dataset_import_view, name="dataset-import"),
    path("datasets/<slug:slug>/export.jsonl", datasets.dataset_export, name="dataset-export"),
]
