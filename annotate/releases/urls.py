from django.urls import URLPattern, URLResolver, include, path

import core.converters  # noqa: F401  (registers <id:…>)
from annotate.releases import views as releases

# One release of a dataset.
release = [
    path("", releases.release_detail, name="release-detail"),
    path("publish/", releases.release_publish_view, name="release-publish"),
    path("reveal/", releases.release_reveal_view, name="release-reveal"),
    path("delete/", releases.release_delete_view, name="release-delete"),
    path("archive/", releases.release_archive, name="release-archive"),
    path("files/<str:name>", releases.release_file, name="release-file"),
]

# A dataset's releases.
dataset: list[URLPattern | URLResolver] = [
    path("reveal/", releases.dataset_reveal_view, name="dataset-reveal"),
    path("releases/new/", releases.release_new, name="release-new"),
    path("releases/diff/", releases.release_diff_view, name="release-diff"),
    path("releases/<str:version>/", include(release)),
]

urlpatterns = [path("datasets/<slug:slug>/", include(dataset))]
