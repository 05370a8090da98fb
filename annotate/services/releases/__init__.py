"""Dataset releases: freeze, publish, files, archive, import (see annotate/models/releases.py)."""

from annotate.services.releases.archive import release_archive_build, release_archive_request
from annotate.services.releases.freeze import release_delete_draft, release_freeze
from annotate.services.releases.publish import (
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
