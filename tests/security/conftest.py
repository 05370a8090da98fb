import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.security.walker_world import build_world


@pytest.fixture
def world(db, settings, tmp_path, django_capture_on_commit_callbacks):
    """The route walker's world: an owner's public and private things, and the others who ask."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    with django_capture_on_commit_callbacks(execute=False):
        return build_world()


@pytest.fixture
def import_into_empty_dataset(make_dataset, client_for, owner):
    """`import_into_empty_dataset(filename, content)`: the owner's API import of a file into
    their dataset "chat", made empty for the test."""
    make_dataset(data=None)

    def post(filename: str, content: bytes):
        upload = SimpleUploadedFile(filename, content)
        return client_for(owner).post("/api/v1/datasets/chat/import/", {"file": upload})

    return post
