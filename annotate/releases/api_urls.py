from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.releases import api as releases

urlpatterns = [
    path(
        "datasets/<slug:slug>/reveal/",
        releases.DatasetRevealApi.as_view(),
        name="api-dataset-reveal",
    ),
    path("datasets/<slug:slug>/releases/", releases.ReleaseListApi.as_view(), name="api-releases"),
    path(
        "datasets/<slug:slug>/releases/diff/",
        releases.ReleaseDiffApi.as_view(),
        name="api-release-diff",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/",
        releases.ReleaseDetailApi.as_view(),
        name="api-release",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/publish/",
        releases.ReleasePublishApi.as_view(),
        name="api-release-publish",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/reveal/",
        releases.ReleaseRevealApi.as_view(),
        name="api-release-reveal",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/manifest/",
        releases.ReleaseManifestApi.as_view(),
        name="api-release-manifest",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/archive/",
        releases.ReleaseArchiveApi.as_view(),
        name="api-release-archive",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/files/<str:name>",
        releases.ReleaseFileApi.as_view(),
        name="api-release-file",
    ),
    path("releases/import/", releases.ReleaseImportApi.as_view(), name="api-release-import"),
]
