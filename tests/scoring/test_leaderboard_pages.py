"""Leaderboard pages: list, detail, downloads, exports, the form to open one; who sees what."""

import csv
import io
import json

import pytest

from annotate.accounts.models import Role
from scoring.leaderboards.models import Leaderboard, Team
from scoring.metrics import read_refs_jsonl
from tests.conftest import leaderboard_of, release_of, user_of
from tests.runs_kit import upload
from tests.scoring.conftest import GOOD, HIDDEN, NONSENSE, PERFECT
from tests.scoring.world_kit import scored_now, shared_scoring_world

pytestmark = pytest.mark.django_db
TEST_HYPS = ["the answer is here", "another reference"]


def _two_entries(owner):
    """The dev board "board" on release chat@1.0.0: the owner's baseline and another's oracle."""
    board = leaderboard_of(owner, release=release_of(owner), companion_metrics=["bleu", "nist"])
    scored_now(board, owner, GOOD, method="copy baseline", is_baseline=True)
    other = user_of("other", Role.RESEARCHER)
    scored_now(board, other, PERFECT, method="oracle", url="https://example.org/paper")
    return {"board": board}


# Built once for the module (tests that open boards of their own name them apart).
shared, world, board = shared_scoring_world(_two_entries, "board")


@pytest.fixture
def hidden_board(make_release, make_leaderboard, owner, other, scored):
    board = make_leaderboard(split="test", slug="hidden", release=make_release(slug="secret"))
    scored(board, owner, ["answer", "reference"], method="tiny baseline", is_baseline=True)
    scored(board, other, TEST_HYPS, method="participant system")
    return board


def users(owner, other, rater):
    return {"owner": owner, "other": other, "rater": rater, "anonymous": None}


def test_the_list_shows_visible_leaderboards(board, client_for, owner, other):
    Leaderboard.objects.filter(pk=board.pk).update(is_public=False)
    for user, sees in [(owner, True), (other, False), (None, False)]:
        response = client_for(user).get("/leaderboards/")
        assert response.status_code == 200
        assert (b'href="/leaderboards/board/"' in response.content) is sees


def test_the_home_page_lists_leaderboards(board, client_for):
    response = client_for(None).get("/")
    assert b'href="/leaderboards/board/"' in response.content
    assert b"none is open yet" not in response.content


def test_the_page_shows_signature_rows_plot_and_highlighted_baseline(board, client_for, other):
    response = client_for(other).get("/leaderboards/board/")
    page = response.content.decode()
    assert "dbleu|def:paper" in page
    assert page.index("oracle") < page.index("copy baseline")
    assert 'class="baseline"' in page and "data-chart" in page and "js/leaderboard.js" in page
    plot = response.context["plot"]
    assert [row["kind"] for row in plot["data"]["values"]] == ["submission", "baseline"]
    assert plot["data"]["values"][0]["label"].endswith("oracle")
    assert 'href="/leaderboards/board/submit/"' in page
    assert 'href="https://example.org/paper"' in page
    assert "/leaderboards/board/references.jsonl" in page  # dev references are public


def test_a_private_leaderboard_is_the_owners_alone(board, client_for, owner, other, rater):
    Leaderboard.objects.filter(pk=board.pk).update(is_public=False)
    paths = ["", "compare/", "export.csv", "export.json", "items.jsonl", "references.jsonl"]
    for name, user in users(owner, other, rater).items():
        for path in paths:
            status = client_for(user).get(f"/leaderboards/board/{path}").status_code
            assert status == (200 if name == "owner" else 404), (name, path)


def test_own_submissions_being_scored_show_a_progress_bar(
    board, client_for, other, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        pending = upload(board, other, NONSENSE, filename="o.txt", method="still running")
    page = client_for(other).get("/leaderboards/board/").content.decode()
    assert f'data-url="/api/v1/submissions/{pending.pk}/"' in page and "<progress" in page
    assert "still running" not in client_for(None).get("/leaderboards/board/").content.decode()


def test_items_download_has_ids_context_and_messages_in_order(board, client_for):
    response = client_for(None).get("/leaderboards/board/items.jsonl")
    rows = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]
    assert [r["id"] for r in rows] == ["d1", "d2", "d3", "d5"]
    assert rows[0] == {"id": "d1", "context": ["earlier turn"], "message": "message d1"}


def test_dev_references_download_in_the_cli_format(board, client_for, tmp_path):
    response = client_for(None).get("/leaderboards/board/references.jsonl")
    path = tmp_path / "refs.jsonl"
    path.write_bytes(b"".join(response.streaming_content))
    items = read_refs_jsonl(path)
    assert [i.id for i in items] == ["d1", "d2", "d3", "d5"]
    assert (items[0].refs[0].text, items[0].refs[0].weight) == ("the cat sat on the mat", 1.0)


def test_csv_export(board, client_for):
    response = client_for(None).get("/leaderboards/board/export.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["method"] for r in rows] == ["oracle", "copy baseline"]
    assert (
        rows[0]["group"] == "1" and rows[1]["is_baseline"] == "true"
    )  # one writer: JSON-style booleans
    assert float(rows[0]["dbleu"]) == pytest.approx(100.0)
    assert {"dbleu_ci_low", "dbleu_ci_high", "bleu", "nist_ci_high"} <= set(rows[0])


def test_json_export(board, client_for):
    data = client_for(None).get("/leaderboards/board/export.json").json()
    assert data["leaderboard"]["slug"] == "board" and data["signature"].startswith("dbleu|")
    assert data["leaderboard"]["release"] == "chat@1.0.0"
    oracle = data["rows"][0]
    assert oracle["method"] == "oracle" and oracle["position"] == 1 and oracle["group"] == 1
    assert set(oracle["scores"]) == {"dbleu", "bleu", "nist"}
    assert oracle["ci_low"] <= oracle["score"] <= oracle["ci_high"]
    assert client_for(None).get("/leaderboards/board/export.xml").status_code == 404


def test_a_formula_in_a_method_name_stays_text_in_the_csv(
    make_release, make_leaderboard, other, scored, client_for
):
    board = make_leaderboard(slug="formula", release=make_release(slug="formula"))
    scored(board, other, GOOD, method='=HYPERLINK("http://evil")')
    text = client_for(None).get("/leaderboards/formula/export.csv").content.decode()
    assert "'=HYPERLINK" in text


def test_hidden_references_never_leave_for_non_owners(
    hidden_board, client_for, owner, other, rater
):
    participant_id = hidden_board.submissions.get(method="participant system").pk
    paths = [
        "",
        "compare/",
        f"compare/?a={participant_id}",
        "export.csv",
        "export.json",
        "items.jsonl",
        "references.jsonl",
    ]
    for name, user in users(owner, other, rater).items():
        client = client_for(user)
        for path in paths:
            response = client.get(f"/leaderboards/hidden/{path}")
            body = (
                b"".join(response.streaming_content) if response.streaming else response.content
            ).decode()
            if path == "references.jsonl":
                assert response.status_code == (200 if name == "owner" else 404)
            else:
                assert response.status_code == 200, (name, path)
            if name != "owner":
                assert [s for s in HIDDEN if s in body] == [], (name, path)
    owner_client = client_for(owner)
    refs = b"".join(owner_client.get("/leaderboards/hidden/references.jsonl").streaming_content)
    assert all(secret.encode() in refs for secret in HIDDEN[:2])
    compare = owner_client.get(f"/leaderboards/hidden/compare/?a={participant_id}")
    assert HIDDEN[0].encode() in compare.content  # the owner sees items side by side


def test_logging_in_from_a_page_comes_back_to_it_with_its_query(client_for):
    page = client_for(None).get("/leaderboards/?sort=name&page=2").content.decode()
    assert 'href="/accounts/login/?next=/leaderboards/%3Fsort%3Dname%26page%3D2"' in page


@pytest.mark.parametrize("release", ["²", "9" * 30, "9" * 5000])
def test_a_link_naming_no_release_is_a_404(client_for, owner, release):
    page = client_for(owner).get(f"/leaderboards/new/?release={release}")
    assert page.status_code == 404


def test_the_owner_opens_a_leaderboard_from_a_release(make_release, client_for, owner):
    release = make_release(slug="opened")
    page = client_for(owner).get(f"/leaderboards/new/?release={release.pk}")
    assert page.status_code == 200
    assert f'<option value="{release.pk}" selected>'.encode() in page.content
    form = {
        "release": release.pk,
        "split": "dev",
        "name": "Chat dev",
        "slug": "chat-dev",
        "primary_metric": "dbleu",
        "metric_options": '{"max_order": 2}',
        "companion_metrics": ["bleu", "nist"],
        "daily_quota": 3,
        "total_quota": 30,
        "is_public": "on",
    }
    response = client_for(owner).post("/leaderboards/new/", form)
    assert response.status_code == 302 and response["Location"] == "/leaderboards/chat-dev/"
    board = Leaderboard.objects.get(slug="chat-dev")
    assert (board.metric_options, board.companion_metrics) == ({"max_order": 2}, ["bleu", "nist"])
    again = client_for(owner).post("/leaderboards/new/", {**form, "slug": "new"})
    assert again.status_code == 200 and b"taken by a page" in again.content
    bad = client_for(owner).post(
        "/leaderboards/new/", {**form, "slug": "x", "metric_options": '{"max_order": "many"}'}
    )
    assert bad.status_code == 200 and b"max_order" in bad.content
    assert not Leaderboard.objects.filter(slug="x").exists()


def test_only_the_owner_opens_a_leaderboard_on_their_release(
    make_release, client_for, other, rater
):
    release = make_release(slug="owned")
    anonymous = client_for(None).get(f"/leaderboards/new/?release={release.pk}")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    assert client_for(rater).get("/leaderboards/new/").status_code == 403
    assert client_for(other).get(f"/leaderboards/new/?release={release.pk}").status_code == 404
    form = {
        "release": release.pk,
        "split": "dev",
        "name": "Mine",
        "slug": "mine",
        "primary_metric": "dbleu",
        "daily_quota": 3,
        "total_quota": 30,
    }
    response = client_for(other).post("/leaderboards/new/", form)
    assert response.status_code == 200 and not Leaderboard.objects.filter(slug="mine").exists()


def test_a_teams_private_submission_shows_only_to_it_and_the_owner(
    board, client_for, owner, other, rater, scored
):
    secret = Team.objects.create(name="private-team")
    secret.members.add(other)
    scored(board, other, GOOD, method="private entry", team_name="private-team", is_public=False)
    for user, sees in [(owner, True), (other, True), (rater, False), (None, False)]:
        page = client_for(user).get("/leaderboards/board/").content.decode()
        assert ("private entry" in page) is sees
        csv_text = client_for(user).get("/leaderboards/board/export.csv").content.decode()
        assert ("private entry" in csv_text) is sees


def test_a_published_release_page_offers_its_owner_a_leaderboard(
    make_dataset, make_campaign, make_rater, client_for, owner, other
):
    from django.urls import reverse

    from tests.annotate.release_kit import published, rated

    dataset, campaign = rated(make_dataset, make_campaign, make_rater, slug="offered")
    release = published(dataset, campaign, owner)
    url = reverse("release-detail", args=[release.dataset.slug, release.version])
    link = reverse("leaderboard-new") + f"?release={release.pk}"
    assert link in client_for(owner).get(url).content.decode()
    assert link not in client_for(other).get(url).content.decode()
