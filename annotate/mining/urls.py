from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.mining import views as mining

urlpatterns = [
    path("datasets/<slug:slug>/mining/", mining.dataset_mining, name="dataset-mining"),
    path("datasets/<slug:slug>/mining/candidates/", mining.mined_review, name="mined-review"),
    path("corpora/", mining.corpus_list, name="corpus-list"),
    path("corpora/<id:corpus_id>/", mining.corpus_detail, name="corpus-detail"),
    path("corpora/<id:corpus_id>/delete/", mining.corpus_delete_view, name="corpus-delete"),
]
