import pytest
from django.core.files.uploadedfile import SimpleUploadedFile


@pytest.fixture
def import_into_empty_dataset(make_dataset, client_for, owner):
    """`import_into_empty_dataset(filename, content)`: the owner's API import of a file into
    their dataset "chat", made empty for the test."""
    make_dataset(data=None)

    def post(filename: str, content: bytes):
        upload = SimpleUploadedFile(filename, content)
        return client_for(owner).post("/api/v1/datasets/chat/import/", {"file": upload})

    return post
