from django.urls import URLPattern, URLResolver, include, path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.releases import api as releases

# One release of a dataset.
release = [
    path("", releases.ReleaseDetailApi.as_view(), name="api-release"),
    path("publish/", releases.ReleasePublishApi.as_view(), name="api-release-publish"),
    path("reveal/", releases.ReleaseRevealApi.as_view(), name="api-release-reveal"),
    path("manifest/", releases.ReleaseManifestApi.as_view(), name="api-release-manifest"),
    path("archive/", releases.ReleaseArchiveApi.as_view(), name="api-release-archive"),
    path("files/<str:name>", releases.ReleaseFileApi.as_view(), name="api-release-file"),
]

# A dataset's releases.
dataset: list[URLPattern | URLResolver] = [
    path("reveal/", releases.DatasetRevealApi.as_view(), name="api-dataset-reveal"),
    path("releases/", releases.ReleaseListApi.as_view(), name="api-releases"),
    path("releases/diff/", releases.ReleaseDiffApi.as_view(), name="api-release-diff"),
    path("releases/<str:version>/", include(release)),
]

urlpatterns = [
    path("datasets/<slug:slug>/", include(dataset)),
    path("releases/import/", releases.ReleaseImportApi.as_view(), name="api-release-import"),
]
