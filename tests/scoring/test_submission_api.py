"""Uploading and following submissions: who may, and what a bad file gets back."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from scoring.leaderboards.models import Submission

pytestmark = pytest.mark.django_db
GOOD = b"the cat sat on a mat\nwhat a great match\nsee you then\ni love cheese pizza\n"


def post(client, board, content=GOOD, **fields):
    fields.setdefault("method", "baseline seq2seq")
    data = {"file": SimpleUploadedFile("out.txt", content), **fields}
    return client.post(f"/api/v1/leaderboards/{board.slug}/submissions/", data)


@pytest.mark.parametrize(
    "who, status", [("other", 201), ("owner", 201), ("rater", 403), ("anonymous", 403)]
)
def test_researchers_submit(
    make_leaderboard, client_for, who, status, user_named, django_capture_on_commit_callbacks
):
    board = make_leaderboard()
    with django_capture_on_commit_callbacks(execute=False):
        response = post(client_for(user_named(who)), board)
    assert response.status_code == status
    if status == 201:
        assert response.json()["status"] == "queued" and response.json()["n_lines"] == 4


def test_a_bad_file_gets_every_problem_by_line(make_leaderboard, client_for, other):
    board = make_leaderboard()
    response = post(client_for(other), board, content=b"one\ntwo \xff\n")
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"line": 2, "message": "not valid UTF-8 (byte 5 of the line)"},
        {"line": 0, "message": "the file has 2 lines; the leaderboard has 4 items"},
    ]
    assert not Submission.objects.exists()


def test_a_refused_submission_leaves_no_file_behind(make_leaderboard, client_for, other):
    board = make_leaderboard()
    too_long = "https://example.org/" + "a" * 300
    for _ in range(2):  # each retry stored one more file
        response = post(client_for(other), board, url=too_long)
        assert response.status_code == 400 and "url" in response.json()
    assert not Submission.objects.exists()
    folder = Path(settings.MEDIA_ROOT) / "submissions"
    assert not folder.exists() or not any(p.is_file() for p in folder.rglob("*"))


def test_hidden_references_never_appear_in_errors(
    make_leaderboard, make_release, client_for, other
):
    board = make_leaderboard(split="test", slug="hidden")
    response = post(client_for(other), board, content=b'{"id": "zz", "hyp": "x"}\n', format="jsonl")
    text = response.content.decode()
    assert response.status_code == 400
    for secret in ("the hidden answer is here", "secret text", "another hidden reference"):
        assert secret not in text


@pytest.mark.parametrize(
    "who, status",
    [("other", 200), ("owner", 200), ("rater", 404), ("staff", 200), ("anonymous", 403)],
)
def test_a_submission_is_seen_by_its_team_and_the_board_owner(
    make_leaderboard, client_for, other, who, status, user_named, django_capture_on_commit_callbacks
):
    board = make_leaderboard()
    with django_capture_on_commit_callbacks(execute=False):
        submission_id = post(client_for(other), board).json()["id"]
    response = client_for(user_named(who)).get(f"/api/v1/submissions/{submission_id}/")
    assert response.status_code == status


def test_only_the_team_picks_and_cancels(
    make_leaderboard, client_for, other, owner, django_capture_on_commit_callbacks
):
    board = make_leaderboard(split="test", slug="test-board")
    t1t2 = b"hidden guess\nanother guess\n"
    with django_capture_on_commit_callbacks(execute=False):
        submission_id = post(client_for(other), board, content=t1t2).json()["id"]
    url = f"/api/v1/submissions/{submission_id}/"
    assert client_for(owner).patch(url, {"counts": False}, format="json").status_code == 403
    assert client_for(other).patch(url, {"counts": False}, format="json").json()["counts"] is False
    response = client_for(other).patch(url, {"cancel": True}, format="json").json()
    # Cancelled while queued: scoring had not begun, so the attempt is given back.
    assert response["status"] == "cancelled" and response["charged"] is False


def test_only_the_owner_adds_baselines(
    make_leaderboard, client_for, other, owner, django_capture_on_commit_callbacks
):
    board = make_leaderboard()
    assert post(client_for(other), board, is_baseline=True).status_code == 403
    with django_capture_on_commit_callbacks(execute=False):
        assert post(client_for(owner), board, is_baseline=True).json()["is_baseline"] is True


@pytest.mark.parametrize("who, status", [("other", 200), ("rater", 403), ("anonymous", 302)])
def test_the_upload_page(make_leaderboard, client_for, who, status, user_named):
    board = make_leaderboard()
    response = client_for(user_named(who)).get(reverse("submission-new", args=[board.slug]))
    assert response.status_code == status


def test_the_upload_page_lists_problems_by_line(make_leaderboard, client_for, other):
    board = make_leaderboard()
    response = client_for(other).post(
        reverse("submission-new", args=[board.slug]),
        {"file": SimpleUploadedFile("x.txt", b"a\x00b\n"), "method": "m", "is_public": "on"},
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "Line 1: contains a NUL byte" in page and "nothing was queued or charged" in page


def test_the_submission_page_shows_status_and_scores(
    make_leaderboard, client_for, other, django_capture_on_commit_callbacks
):
    from tests.runs_kit import execute

    board = make_leaderboard()
    with django_capture_on_commit_callbacks(execute=False):
        body = post(client_for(other), board).json()
    submission_id = body["id"]
    assert (body["status_text"], body["attempt"]) == ("Waiting for a worker", 1)
    execute(body["run"])
    page = (
        client_for(other).get(reverse("submission-detail", args=[submission_id])).content.decode()
    )
    assert "Succeeded" in page and "Finished" not in page and "dbleu|def:paper" in page
