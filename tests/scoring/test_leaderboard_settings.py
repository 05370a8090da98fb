"""The owner's settings of a board (the upload size limit, picks per team, quotas), and uploads
over the limit refused with a 400 that names it, on the page and in the API; the form's help."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import strip_tags
from django.utils.safestring import SafeData

from scoring.leaderboards.models import Leaderboard, Submission
from tests.scoring.conftest import GOOD, TEST_POOR

pytestmark = pytest.mark.django_db
OUTPUT = ("\n".join(GOOD) + "\n").encode()


@pytest.fixture
def board(make_leaderboard):
    return make_leaderboard(split="test", slug="hidden")


def settings_data(**changes):
    data = {
        "name": "Hidden",
        "description": "",
        "is_open": "on",
        "is_public": "on",
        "daily_quota": 5,
        "total_quota": 100,
        "max_upload_mb": 0.5,
        "counted_per_team": 2,
    }
    return {k: v for k, v in {**data, **changes}.items() if v is not None}


def test_the_owner_sets_the_limit_and_the_picks_on_the_page(board, owner, client_for):
    client = client_for(owner)
    form = client.get("/leaderboards/hidden/settings/")
    assert form.status_code == 200 and 'value="200.0"' in form.content.decode()
    response = client.post("/leaderboards/hidden/settings/", settings_data())
    assert response.status_code == 302 and response["Location"] == "/leaderboards/hidden/"
    board.refresh_from_db()
    assert (board.max_upload_bytes, board.counted_per_team) == (512 * 1024, 2)
    page = client_for(None).get("/leaderboards/hidden/").content.decode()
    assert "Uploads up to 512.0\xa0KB" in page and "each team picks up to 2 submissions" in page


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"max_upload_mb": 0}, "max_upload_mb"),
        ({"max_upload_mb": "lots"}, "max_upload_mb"),
        ({"counted_per_team": 0}, "counted_per_team"),
        ({"counted_per_team": 21}, "counted_per_team"),
        ({"daily_quota": None}, "daily_quota"),
        ({"name": ""}, "name"),
    ],
)
def test_bad_settings_are_a_400_naming_the_field(board, owner, client_for, changes, field):
    page = client_for(owner).post("/leaderboards/hidden/settings/", settings_data(**changes))
    assert page.status_code == 400 and field in page.context["form"].errors


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"max_upload_bytes": 10}, "max_upload_bytes"),
        ({"max_upload_bytes": 2**40}, "max_upload_bytes"),
        ({"counted_per_team": 0}, "counted_per_team"),
        ({"daily_quota": "many"}, "daily_quota"),
        ({"is_open": "perhaps"}, "is_open"),
    ],
)
def test_bad_settings_in_the_api_name_the_field(board, owner, client_for, data, field):
    response = client_for(owner).patch("/api/v1/leaderboards/hidden/", data, format="json")
    assert response.status_code == 400 and field in response.json()


@pytest.mark.parametrize(
    ("who", "page", "api"),
    [
        ("owner", 200, 200),
        ("staff", 200, 200),
        ("other", 403, 403),
        ("rater", 403, 403),
        ("anonymous", 302, 403),
    ],
)
def test_only_the_owner_changes_settings(board, client_for, user_named, who, page, api):
    client = client_for(user_named(who))
    assert client.get("/leaderboards/hidden/settings/").status_code == page
    post = client.post("/leaderboards/hidden/settings/", settings_data(counted_per_team=3))
    assert post.status_code == (302 if page == 200 else page)
    patch = client.patch("/api/v1/leaderboards/hidden/", {"total_quota": 7}, format="json")
    assert patch.status_code == api
    board.refresh_from_db()
    assert (board.counted_per_team, board.total_quota) == ((3, 7) if api == 200 else (1, 100))


def test_a_private_board_is_not_there_for_others(make_leaderboard, client_for, other):
    make_leaderboard(slug="quiet", is_public=False)
    assert client_for(other).get("/leaderboards/quiet/settings/").status_code == 404
    patch = client_for(other).patch("/api/v1/leaderboards/quiet/", {}, format="json")
    assert patch.status_code == 404


def test_the_api_reads_and_sets_the_limit(board, owner, client_for):
    response = client_for(owner).patch(
        "/api/v1/leaderboards/hidden/",
        {"max_upload_bytes": 4096, "counted_per_team": 3, "is_open": False},
        format="json",
    )
    body = response.json()
    assert (body["max_upload_bytes"], body["counted_per_team"], body["is_open"]) == (4096, 3, False)
    listed = client_for(None).get("/api/v1/leaderboards/").json()
    assert listed["results"][0]["max_upload_bytes"] == 4096


def test_the_picks_limit_is_not_lowered_below_the_picks_made(board, owner, other, client_for):
    # Lowered from 3 to 1, the board went on ranking all 3 entries of a team that counted 3.
    from tests.runs_kit import upload

    board.counted_per_team = 3
    board.save()
    for method in ("a", "b"):
        assert upload(board, other, TEST_POOR, method=method).counts
    api = client_for(owner).patch(
        "/api/v1/leaderboards/hidden/", {"counted_per_team": 1}, format="json"
    )
    assert api.status_code == 400
    message = api.json()["counted_per_team"][0]
    assert f"more than 1 submission(s) each: {other.username} (2)" in message
    page = client_for(owner).post(
        "/leaderboards/hidden/settings/", settings_data(counted_per_team=1)
    )
    assert page.status_code == 400 and "stop counting some first" in page.content.decode()
    board.refresh_from_db()
    assert board.counted_per_team == 3
    assert (
        client_for(owner)
        .patch("/api/v1/leaderboards/hidden/", {"counted_per_team": 2}, format="json")
        .status_code
        == 200
    )


def test_an_upload_over_the_limit_is_a_400_naming_it(board, other, client_for):
    Leaderboard.objects.filter(pk=board.pk).update(max_upload_bytes=1024)
    big = b"x" * 2000 + b"\n" + b"y\n"
    page = client_for(other).post(
        "/leaderboards/hidden/submit/",
        {"file": SimpleUploadedFile("big.txt", big), "method": "m"},
    )
    text = page.content.decode()
    assert page.status_code == 400
    assert "the file is 2 KB; this leaderboard accepts files up to 1 KB" in text
    api = client_for(other).post(
        "/api/v1/leaderboards/hidden/submissions/",
        {"file": SimpleUploadedFile("big.txt", big), "method": "m"},
        format="multipart",
    )
    assert api.status_code == 400
    assert api.json()["problems"] == [
        {"line": 0, "message": "the file is 2 KB; this leaderboard accepts files up to 1 KB"}
    ]
    assert not Submission.objects.exists()
    assert (
        'up to <span id="size-limit">1.0\xa0KB'
        in client_for(other).get("/leaderboards/hidden/submit/").content.decode()
    )


def test_the_slug_help_shows_the_address(client_for, owner, make_release):
    """The help was rendered as HTML, so "<slug>" vanished: "/leaderboards//."."""
    make_release()
    text = strip_tags(client_for(owner).get("/leaderboards/new/").content.decode())
    assert "/leaderboards//" not in text
    assert "its address is /leaderboards/your-slug/" in text


def test_no_form_help_text_loses_words_to_html():
    """Django renders help text as HTML: angle brackets in plain help text are tags, and vanish
    (the check that would have caught "/leaderboards//.")."""
    import importlib
    import pkgutil

    from django import forms

    import annotate
    import core
    import scoring

    for package in (annotate, core, scoring):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if re.search(r"forms?$|_forms$", info.name):
                importlib.import_module(info.name)

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    ours = [
        f
        for f in subclasses(forms.BaseForm)
        if f.__module__.split(".")[0] in {"annotate", "core", "scoring"}
    ]
    assert any(f.__name__ == "LeaderboardForm" for f in ours)
    for form in ours:
        for name, field in form.base_fields.items():
            help_text = str(field.help_text or "")
            if isinstance(help_text, SafeData):
                continue  # HTML on purpose (Django's password rules are a list)
            assert strip_tags(help_text) == help_text, f"{form.__module__}.{form.__name__}.{name}"
