"""Pages for datasets: who sees what, who may change what."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotate.datasets.models import Dataset, Item
from tests.conftest import DATA

pytestmark = pytest.mark.django_db


def upload(name, content: bytes):
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def test_home_lists_public_datasets_to_anyone(make_dataset, client_for):
    make_dataset(slug="open-chat", visibility="public")
    make_dataset(slug="secret-chat", data=None)
    page = client_for(None).get(reverse("home")).content.decode()
    assert "Open-Chat" in page
    assert "Secret-Chat" not in page


def test_home_lists_own_private_datasets_to_the_owner(make_dataset, owner, other, client_for):
    make_dataset(slug="secret-chat", data=None)
    assert "Secret-Chat" in client_for(owner).get(reverse("home")).content.decode()
    assert "Secret-Chat" not in client_for(other).get(reverse("home")).content.decode()


@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("other", 404), ("anonymous", 404), ("staff", 200)]
)
def test_a_private_dataset_page_is_for_its_owner(make_dataset, client_for, who, status, request):
    dataset = make_dataset()
    user = None if who == "anonymous" else request.getfixturevalue(who)
    assert (
        client_for(user).get(reverse("dataset-detail", args=[dataset.slug])).status_code == status
    )


@pytest.mark.parametrize("who", ["owner", "other", "anonymous"])
def test_a_public_dataset_page_shows_items_to_anyone(make_dataset, client_for, who, request):
    dataset = make_dataset(visibility="public")
    user = None if who == "anonymous" else request.getfixturevalue(who)
    page = client_for(user).get(reverse("dataset-detail", args=[dataset.slug]))
    assert page.status_code == 200
    assert "yes, what a finish!" in page.content.decode()
    assert ("Import items" in page.content.decode()) == (who == "owner")


def test_the_split_tab_filters_items(make_dataset, client_for, owner):
    dataset = make_dataset()
    page = client_for(owner).get(reverse("dataset-detail", args=[dataset.slug]) + "?split=test")
    assert "café" in page.content.decode()
    assert "what a finish" not in page.content.decode()


@pytest.mark.parametrize(
    "who, status", [("owner", 200), ("other", 403), ("rater", 404), ("anonymous", 302)]
)
def test_the_import_form_is_for_the_owner(make_dataset, client_for, who, status, request):
    dataset = make_dataset(visibility="public" if who == "other" else "private")
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = client_for(user).get(reverse("dataset-import", args=[dataset.slug]))
    assert response.status_code == status


def test_import_through_the_form(make_dataset, client_for, owner):
    dataset = make_dataset(data=None)
    response = client_for(owner).post(
        reverse("dataset-import", args=[dataset.slug]),
        {"file": upload("chat.tsv", (DATA / "small.tsv").read_bytes())},
    )
    assert response.status_code == 302
    assert Item.objects.filter(split__dataset=dataset).count() == 2


def test_a_bad_upload_lists_every_problem_and_writes_nothing(make_dataset, client_for, owner):
    dataset = make_dataset()
    response = client_for(owner).post(
        reverse("dataset-import", args=[dataset.slug]),
        {"file": upload("bad.jsonl", (DATA / "bad.jsonl").read_bytes())},
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "nothing was written" in page
    for line in (2, 3, 4, 5, 6):
        assert f"Line {line}" in page
    assert Item.objects.filter(split__dataset=dataset).count() == 3


def test_an_unknown_extension_asks_for_the_format(make_dataset, client_for, owner):
    dataset = make_dataset(data=None)
    response = client_for(owner).post(
        reverse("dataset-import", args=[dataset.slug]), {"file": upload("chat.csv", b"x")}
    )
    assert "Cannot tell the format" in response.content.decode()


@pytest.mark.parametrize("who, status", [("owner", 200), ("other", 404), ("anonymous", 404)])
def test_export_of_a_private_dataset(make_dataset, client_for, who, status, request):
    dataset = make_dataset()
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = client_for(user).get(reverse("dataset-export", args=[dataset.slug]))
    assert response.status_code == status
    if status == 200:
        assert b"".join(response.streaming_content) == (DATA / "small.jsonl").read_bytes()


@pytest.mark.parametrize("who, status", [("owner", 200), ("rater", 403), ("anonymous", 302)])
def test_only_researchers_create_datasets(client_for, who, status, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    assert client_for(user).get(reverse("dataset-new")).status_code == status


def _create_chat(client, *, scale_min, scale_max):
    """Post the new-dataset form for a private English dataset "chat" with this scale."""
    form = {"name": "Chat", "slug": "chat", "language": "en", "visibility": "private"}
    return client.post(
        reverse("dataset-new"), {**form, "scale_min": scale_min, "scale_max": scale_max}
    )


def test_creating_a_dataset_leads_to_the_import(client_for, owner):
    response = _create_chat(client_for(owner), scale_min=1, scale_max=5)
    assert response.status_code == 302
    assert response["Location"] == reverse("dataset-import", args=["chat"])
    assert Dataset.objects.get(slug="chat").owner == owner


def test_a_reversed_scale_names_the_problem(client_for, owner):
    response = _create_chat(client_for(owner), scale_min=5, scale_max=1)
    assert response.status_code == 200
    form = response.context["form"]  # on the field, in words, not the database's constraint
    assert form.errors == {"scale_max": ["Must be above the scale's minimum (5)."]}
    assert "dataset_scale_min_lt_max" not in response.content.decode()
    assert not Dataset.objects.exists()
