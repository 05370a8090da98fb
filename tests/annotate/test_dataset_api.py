"""The datasets REST API: visibility, ownership, imports with line-numbered errors."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token

from annotate.datasets.models import Dataset, Item
from tests.conftest import DATA

pytestmark = pytest.mark.django_db

NEW = {"slug": "fresh", "name": "Fresh", "language": "en", "visibility": "public"}


@pytest.fixture
def get_as(client_for, user_named):
    """`get_as(who, path, status)`: the response to a GET of `path` by the user named `who`
    ("anonymous" for none), which must have that status."""

    def get(who, path, status):
        response = client_for(user_named(who)).get(path)
        assert response.status_code == status
        return response

    return get


def test_list_shows_public_and_own(make_dataset, other, client_for):
    make_dataset(slug="mine", data=None)
    make_dataset(slug="open", visibility="public", data=None, user=other)
    make_dataset(slug="theirs", data=None, user=other)

    def slugs(user):
        response = client_for(user).get("/api/v1/datasets/")
        return [d["slug"] for d in response.json()["results"]]

    assert slugs(None) == ["open"]
    assert sorted(slugs(other)) == ["open", "theirs"]


@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("other", 404), ("anonymous", 404), ("staff", 200)]
)
def test_detail_of_a_private_dataset(make_dataset, get_as, who, status):
    make_dataset()
    get_as(who, "/api/v1/datasets/chat/", status)


@pytest.mark.parametrize("who, status", [("owner", 201), ("rater", 403), ("anonymous", 403)])
def test_create_is_for_researchers(client_for, user_named, who, status):
    response = client_for(user_named(who)).post("/api/v1/datasets/", NEW, format="json")
    assert response.status_code == status
    assert Dataset.objects.filter(slug="fresh").exists() == (status == 201)


def test_create_reports_bad_fields(client_for, owner):
    response = client_for(owner).post(
        "/api/v1/datasets/",
        {**NEW, "language": "English!", "scale_min": 5, "scale_max": 1},
        format="json",
    )
    assert response.status_code == 400
    assert "language" in response.json()
    reversed_scale = {**NEW, "scale_min": 5, "scale_max": 1}
    response = client_for(owner).post("/api/v1/datasets/", reversed_scale, format="json")
    assert response.status_code == 400  # on the field, in words, not the database's constraint
    assert response.json() == {"scale_max": ["Must be above the scale's minimum (5)."]}


@pytest.mark.parametrize("who, status", [("owner", 200), ("other", 403), ("anonymous", 403)])
def test_patch_is_for_the_owner(make_dataset, client_for, user_named, who, status):
    make_dataset(visibility="public")
    response = client_for(user_named(who)).patch(
        "/api/v1/datasets/chat/", {"name": "Renamed"}, format="json"
    )
    assert response.status_code == status
    assert (Dataset.objects.get(slug="chat").name == "Renamed") == (status == 200)


@pytest.mark.parametrize("who, status", [("owner", 204), ("other", 403), ("anonymous", 403)])
def test_delete_is_for_the_owner(make_dataset, client_for, user_named, who, status):
    make_dataset(visibility="public")
    assert client_for(user_named(who)).delete("/api/v1/datasets/chat/").status_code == status
    assert Dataset.objects.filter(slug="chat").exists() == (status != 204)


@pytest.mark.parametrize("who, status", [("owner", 200), ("other", 404), ("anonymous", 404)])
def test_items_of_a_private_dataset(make_dataset, get_as, who, status):
    make_dataset()
    response = get_as(who, "/api/v1/datasets/chat/items/?split=dev", status)
    if status == 200:
        assert [i["id"] for i in response.json()["results"]] == ["c1", "c3"]


def _import(client, upload_name, data_file, **fields):
    """Upload tests/data/`data_file` as `upload_name` to the import of dataset "chat"."""
    file = SimpleUploadedFile(upload_name, (DATA / data_file).read_bytes())
    return client.post("/api/v1/datasets/chat/import/", {"file": file, **fields})


@pytest.mark.parametrize("who, status", [("owner", 201), ("other", 403), ("anonymous", 403)])
def test_import_is_for_the_owner(make_dataset, client_for, user_named, who, status):
    make_dataset(visibility="public", data=None)
    response = _import(client_for(user_named(who)), "x.tsv", "small.tsv")
    assert response.status_code == status
    assert Item.objects.count() == (2 if status == 201 else 0)


def test_import_errors_name_line_and_field_and_write_nothing(make_dataset, client_for, owner):
    make_dataset(data=None)
    response = _import(client_for(owner), "bad.jsonl", "bad.jsonl")
    assert response.status_code == 400
    problems = response.json()["problems"]
    assert {"line": 6, "field": "id", "message": "'ok-1' already used on line 1"} in problems
    assert Item.objects.count() == 0


def test_import_with_an_explicit_format(make_dataset, client_for, owner):
    make_dataset(data=None)
    response = _import(client_for(owner), "upload.dat", "small.jsonl", format="jsonl")
    assert response.json() == {"items": 3, "references": 6}


@pytest.mark.parametrize("line_end", [b"\r\n", b"\r"], ids=["windows", "classic-mac"])
def test_a_file_with_other_line_ends_imports_the_same(make_dataset, client_for, owner, line_end):
    # "CSV (Macintosh)" from a spreadsheet ends lines with a carriage return alone.
    make_dataset(data=None)
    data = (DATA / "small.tsv").read_bytes().replace(b"\n", line_end)
    file = SimpleUploadedFile("x.tsv", data)
    response = client_for(owner).post("/api/v1/datasets/chat/import/", {"file": file})
    assert (response.status_code, Item.objects.count()) == (201, 2), response.json()


@pytest.mark.parametrize("who, status", [("owner", 200), ("other", 404), ("anonymous", 404)])
def test_export_round_trips(make_dataset, get_as, who, status):
    make_dataset()
    response = get_as(who, "/api/v1/datasets/chat/export/", status)
    if status == 200:
        assert b"".join(response.streaming_content) == (DATA / "small.jsonl").read_bytes()


def test_token_authentication(owner, client_for):

    response = client_for(None).post(
        "/api/v1/auth/token/", {"username": "owner", "password": "a-long-test-password-42"}
    )
    key = response.json()["token"]
    client = client_for(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/me/").json() == {
        "username": "owner",
        "role": "researcher",
        "is_staff": False,
    }
    assert Token.objects.get(user=owner).key == key


def test_me_needs_a_login(client_for):
    assert client_for(None).get("/api/v1/me/").status_code == 403


def test_anonymous_requests_are_throttled(client_for, settings):
    from rest_framework.settings import api_settings
    from rest_framework.throttling import AnonRateThrottle

    # The rate is read when the throttle class is defined; set it on the class for this test.
    AnonRateThrottle.THROTTLE_RATES = {**api_settings.DEFAULT_THROTTLE_RATES, "anon": "3/minute"}
    try:
        codes = [client_for(None).get("/api/v1/datasets/").status_code for _ in range(4)]
    finally:
        AnonRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    assert codes == [200, 200, 200, 429]


def test_list_is_paginated(make_dataset, client_for, owner):
    for n in range(3):
        make_dataset(slug=f"d{n}", data=None)
    body = client_for(owner).get("/api/v1/datasets/?page=1").json()
    assert body["count"] == 3 and "next" in body
