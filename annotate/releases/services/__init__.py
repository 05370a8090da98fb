"""Dataset releases: freeze, publish, files, archive, import (see annotate/releases/models.py)."""

from annotate.releases.services.archive import release_archive_build, release_archive_request
from annotate.releases.services.freeze import release_delete_draft, release_freeze
from annotate.releases.services.publish import (
    release_build_files,
    release_meta,
    release_publish,
    release_reveal_split,
)

__all__ = [
    "release_archive_build",
    "release_archive_request",
    "release_build_files",
    "release_delete_draft",
    "release_freeze",
    "release_meta",
    "release_publish",
    "release_reveal_split",
]
