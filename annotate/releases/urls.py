from django.urls import path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.releases import views as releases

urlpatterns = [
    path("datasets/<slug:slug>/reveal/", releases.dataset_reveal_view, name="dataset-reveal"),
    path("datasets/<slug:slug>/releases/new/", releases.release_new, name="release-new"),
    path("datasets/<slug:slug>/releases/diff/", releases.release_diff_view, name="release-diff"),
    path(
        "datasets/<slug:slug>/releases/<str:version>/",
        releases.release_detail,
        name="release-detail",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/publish/",
        releases.release_publish_view,
        name="release-publish",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/reveal/",
        releases.release_reveal_view,
        name="release-reveal",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/delete/",
        releases.release_delete_view,
        name="release-delete",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/archive/",
        releases.release_archive,
        name="release-archive",
    ),
    path(
        "datasets/<slug:slug>/releases/<str:version>/files/<str:name>",
        releases.release_file,
        name="release-file",
    ),
]
