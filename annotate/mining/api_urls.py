from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.mining import api as mining

urlpatterns = [
    path("datasets/<slug:slug>/mining/", mining.MiningApi.as_view(), name="api-mining"),
    path(
        "datasets/<slug:slug>/mining/candidates/",
        mining.CandidateListApi.as_view(),
        name="api-mined-candidates",
    ),
    path(
        "datasets/<slug:slug>/mining/candidates/<id:reference_id>/",
        mining.CandidateDetailApi.as_view(),
        name="api-mined-candidate",
    ),
    path("corpora/", mining.CorpusListApi.as_view(), name="api-corpora"),
    path("corpora/<id:corpus_id>/", mining.CorpusDetailApi.as_view(), name="api-corpus"),
]
