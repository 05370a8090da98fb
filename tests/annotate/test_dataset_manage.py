"""Creating an empty dataset (command line, API) and editing its metadata (API, page)."""

import io

import pytest
from django.core.management import CommandError, call_command

from annotate.datasets.models import Dataset
from tests.conftest import owner_only_access

pytestmark = pytest.mark.django_db


def create(*args):
    out = io.StringIO()
    call_command("create_dataset", *args, stdout=out)
    return out.getvalue()


def test_the_command_creates_an_empty_dataset(owner):
    out = create(
        "dialogue-2026",
        "--name",
        "Dialogue 2026",
        "--owner",
        "owner",
        "--description",
        "Ten systems, three judges.",
        "--visibility",
        "public",
    )
    assert out.strip() == "Created public dataset dialogue-2026 (empty)."
    dataset = Dataset.objects.get(slug="dialogue-2026")
    assert (dataset.name, dataset.owner, dataset.description, dataset.visibility) == (
        "Dialogue 2026",
        owner,
        "Ten systems, three judges.",
        "public",
    )
    assert not dataset.splits.exists()
    assert create("quiet", "--name", "Quiet", "--owner", "owner").startswith("Created private")


@pytest.mark.parametrize(
    "args, message",
    [
        (["chat", "--owner", "nobody"], "--owner: no user 'nobody'."),
        (["chat", "--owner", "owner", "--visibility", "secret"],
         "--visibility: 'secret' is not one of public, private."),
        (["taken", "--owner", "owner"], "Dataset with this Slug already exists."),
        (["Not a slug!", "--owner", "owner"], "valid “slug”"),
        (["chat", "--owner", "owner", "--language", "English"], "BCP 47"),
    ],
)  # fmt: skip
def test_the_command_refuses_in_one_line(owner, make_dataset, args, message):
    make_dataset(slug="taken", data=None)
    with pytest.raises(CommandError) as caught:
        create(*args[:1], "--name", "A name", *args[1:])
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert Dataset.objects.count() == 1


def test_the_api_creates_an_empty_dataset_and_names_bad_fields(owner, make_dataset, client_for):
    make_dataset(slug="taken", data=None)
    client = client_for(owner)
    made = client.post("/api/v1/datasets/", {"slug": "empty", "name": "Empty"}, format="json")
    assert made.status_code == 201, made.json()
    assert made.json()["owner"] == "owner" and made.json()["visibility"] == "private"
    assert client.get("/api/v1/datasets/empty/items/").json()["count"] == 0
    for body, field in [
        ({"slug": "taken", "name": "Again"}, "slug"),
        ({"slug": "fine", "name": "x", "visibility": "secret"}, "visibility"),
        ({"slug": "fine"}, "name"),
    ]:
        response = client.post("/api/v1/datasets/", body, format="json")
        assert response.status_code == 400 and field in response.json(), body


def test_patch_changes_metadata_and_names_bad_fields(make_dataset, owner, client_for):
    make_dataset()
    client = client_for(owner)
    changed = {"name": "Renamed", "description": "Now described.", "visibility": "public"}
    response = client.patch("/api/v1/datasets/chat/", changed, format="json")
    assert response.status_code == 200
    assert {k: response.json()[k] for k in changed} == changed
    for body, field in [({"visibility": "secret"}, "visibility"), ({"language": "!"}, "language")]:
        response = client.patch("/api/v1/datasets/chat/", body, format="json")
        assert response.status_code == 400 and field in response.json(), body
    reversed_scale = client.patch("/api/v1/datasets/chat/", {"scale_min": 9}, format="json")
    assert reversed_scale.status_code == 400
    assert Dataset.objects.get(slug="chat").scale_min == 1


@pytest.mark.parametrize("who, visibility, code", owner_only_access(anonymous=302))
def test_only_the_owner_edits_on_the_page(
    make_dataset, client_for, user_named, who, visibility, code
):
    make_dataset(visibility=visibility)
    user = user_named(who)
    assert client_for(user).get("/datasets/chat/edit/").status_code == code
    client_for(user).post(
        "/datasets/chat/edit/",
        {
            "name": "Taken over",
            "language": "en",
            "scale_min": 1,
            "scale_max": 5,
            "visibility": "public",
        },
    )
    assert (Dataset.objects.get().name == "Taken over") == (code == 200)


def test_the_page_edits_metadata_and_shows_problems(make_dataset, owner, client_for):
    make_dataset()
    client = client_for(owner)
    detail = client.get("/datasets/chat/").content.decode()
    assert 'href="/datasets/chat/edit/"' in detail and 'href="/datasets/chat/delete/"' in detail
    fields = {
        "name": "Chat v2",
        "description": "d",
        "language": "pt-BR",
        "scale_min": 1,
        "scale_max": 7,
        "visibility": "public",
    }
    response = client.post("/datasets/chat/edit/", fields)
    assert response.status_code == 302 and response["Location"] == "/datasets/chat/"
    dataset = Dataset.objects.get(slug="chat")
    assert (dataset.name, dataset.language, dataset.scale_max) == ("Chat v2", "pt-BR", 7)
    bad = client.post("/datasets/chat/edit/", {**fields, "scale_min": 9, "visibility": "x"})
    assert bad.status_code == 400 and "visibility" in bad.content.decode()
    assert Dataset.objects.get(slug="chat").scale_min == 1


def test_others_see_no_edit_or_delete_link(make_dataset, other, client_for):
    make_dataset(visibility="public")
    page = client_for(other).get("/datasets/chat/").content.decode()
    assert "/datasets/chat/edit/" not in page and "/datasets/chat/delete/" not in page
