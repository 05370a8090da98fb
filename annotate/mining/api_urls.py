from django.urls import include, path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.mining import api as mining

# Mining a dataset's candidate references.
dataset = [
    path("", mining.MiningApi.as_view(), name="api-mining"),
    path("candidates/", mining.CandidateListApi.as_view(), name="api-mined-candidates"),
    path(
        "candidates/<id:reference_id>/",
        mining.CandidateDetailApi.as_view(),
        name="api-mined-candidate",
    ),
]

urlpatterns = [
    path("datasets/<slug:slug>/mining/", include(dataset)),
    path("corpora/", mining.CorpusListApi.as_view(), name="api-corpora"),
    path("corpora/<id:corpus_id>/", mining.CorpusDetailApi.as_view(), name="api-corpus"),
]
