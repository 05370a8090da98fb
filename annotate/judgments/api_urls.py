from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.judgments import api as judgments

urlpatterns = [
    path(
        "datasets/<slug:slug>/judgments/",
        judgments.JudgmentImportApi.as_view(),
        name="api-judgments-import",
    ),
    path(
        "datasets/<slug:slug>/judgments/preview/",
        judgments.JudgmentPreviewApi.as_view(),
        name="api-judgments-preview",
    ),
    path(
        "judgments/<id:judgment_set_id>/",
        judgments.JudgmentSetDetailApi.as_view(),
        name="api-judgment-set",
    ),
]
