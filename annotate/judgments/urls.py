from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.judgments import views as judgments

urlpatterns = [
    path(
        "datasets/<slug:slug>/judgments/import/",
        judgments.judgments_upload,
        name="judgments-upload",
    ),
    path(
        "datasets/<slug:slug>/judgments/import/columns/",
        judgments.judgments_upload_columns,
        name="judgments-upload-columns",
    ),
    path(
        "judgments/<id:judgment_set_id>/",
        judgments.judgment_set_detail,
        name="judgment-set-detail",
    ),
]
