"""REST API of leaderboards: list, open, detail, compare, export; authorization for each."""

import csv
import io

import pytest

from annotate.accounts.models import Role
from annotate.datasets.models import Dataset
from scoring.leaderboards.models import Leaderboard
from tests.conftest import leaderboard_of, release_of, user_of
from tests.scoring.conftest import GOOD, HIDDEN, PERFECT
from tests.scoring.world_kit import scored_now, shared_scoring_world

pytestmark = pytest.mark.django_db


def _two_entries(owner):
    """The dev board "board" on release world@1.0.0: the owner's baseline, another's oracle."""
    board = leaderboard_of(
        owner, release=release_of(owner, slug="world"), companion_metrics=["bleu"]
    )
    scored_now(board, owner, GOOD, method="baseline", is_baseline=True)
    scored_now(board, user_of("other", Role.RESEARCHER), PERFECT, method="oracle")
    return {"board": board}


# Built once for the module; the tests that open boards use release chat@1.0.0 of their own.
shared, world, board = shared_scoring_world(_two_entries, "board")


def opened_boards() -> list[str]:
    """Slugs of the boards the test opened (the module's own board aside)."""
    return list(Leaderboard.objects.exclude(slug="board").values_list("slug", flat=True))


def new_board(**fields):
    return {
        "release": "chat@1.0.0",
        "split": "dev",
        "name": "Chat",
        "slug": "chat-dev",
        "primary_metric": "dbleu",
        "companion_metrics": ["bleu"],
        **fields,
    }


def test_the_list_has_visible_leaderboards(board, client_for, owner, other):
    def listed(user):
        return client_for(user).get("/api/v1/leaderboards/").json()["results"]

    assert [b["slug"] for b in listed(None)] == ["board"]
    Leaderboard.objects.filter(pk=board.pk).update(is_public=False)
    assert listed(None) == [] and listed(other) == []
    mine = listed(owner)
    assert mine[0]["release"] == "world@1.0.0" and mine[0]["higher_is_better"] is True


def test_the_detail_has_configuration_signature_and_rows(board, client_for):
    data = client_for(None).get("/api/v1/leaderboards/board/").json()
    assert data["leaderboard"]["companion_metrics"] == ["bleu"]
    assert data["signature"].startswith("dbleu|def:paper") and data["references_visible"]
    oracle, baseline = data["rows"]
    assert (oracle["method"], oracle["group"], baseline["is_baseline"]) == ("oracle", 1, True)
    assert oracle["ci_low"] <= oracle["score"] <= oracle["ci_high"]
    assert oracle["scores"]["bleu"]["signature"].startswith("bleu|")


@pytest.mark.parametrize("who", ["other", "anonymous"])
def test_a_private_leaderboard_is_not_found_for_others(board, client_for, other, who):
    Leaderboard.objects.filter(pk=board.pk).update(is_public=False)
    client = client_for(other if who == "other" else None)
    for path in ["", "compare/", "export.csv", "export.json", "export/?format=csv"]:
        assert client.get(f"/api/v1/leaderboards/board/{path}").status_code == 404, path


def test_exports_as_csv_and_json(board, client_for):
    client = client_for(None)
    for path in ["export.csv", "export/?format=csv"]:
        response = client.get(f"/api/v1/leaderboards/board/{path}")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert [r["method"] for r in rows] == ["oracle", "baseline"]
        assert "attachment" in response["Content-Disposition"]
    data = client.get("/api/v1/leaderboards/board/export.json").json()
    assert data == client.get("/api/v1/leaderboards/board/").json()


def test_compare(board, client_for):
    oracle = board.submissions.get(method="oracle")
    data = client_for(None).get(f"/api/v1/leaderboards/board/compare/?a={oracle.pk}").json()
    assert data["a"]["method"] == "oracle" and data["b"]["method"] == "baseline"
    assert [m["metric"] for m in data["metrics"]] == ["dbleu", "bleu"]
    assert 0 < data["metrics"][0]["p_bootstrap"] <= 1
    same = client_for(None).get(f"/api/v1/leaderboards/board/compare/?a={oracle.pk}&b={oracle.pk}")
    assert same.status_code == 404


def test_hidden_references_never_in_the_api(
    make_leaderboard, owner, other, rater, scored, client_for
):
    board = make_leaderboard(split="test", slug="hidden")
    scored(board, owner, ["answer", "reference"], is_baseline=True)
    scored(board, other, ["the answer is here", "another reference"])
    for user in (owner, other, rater, None):
        for path in ["", "compare/", "export.csv", "export.json"]:
            response = client_for(user).get(f"/api/v1/leaderboards/hidden/{path}")
            assert response.status_code == 200
            assert not [s for s in HIDDEN if s in response.content.decode()], (user, path)
    data = client_for(other).get("/api/v1/leaderboards/hidden/").json()
    assert data["references_visible"] is False
    assert client_for(owner).get("/api/v1/leaderboards/hidden/").json()["references_visible"]


def test_the_owner_opens_a_leaderboard(make_release, client_for, owner):
    release = make_release()
    response = client_for(owner).post("/api/v1/leaderboards/", new_board(), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["slug"] == "chat-dev"
    by_id = new_board(
        release=str(release.pk),
        slug="chat-test",
        split="test",
        metric_options={"definition": "author-2019"},
    )
    response = client_for(owner).post("/api/v1/leaderboards/", by_id, format="json")
    assert response.status_code == 201, response.json()
    board = Leaderboard.objects.get(slug="chat-test")
    assert (board.split, board.metric_options) == ("test", {"definition": "author-2019"})


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"release": "chat@9.9.9"}, "release"),
        ({"release": "nonsense"}, "release"),
        ({"release": "²"}, "release"),  # str.isdigit() takes it, int() does not
        ({"release": "9" * 30}, "release"),  # no database key holds it
        ({"release": "9" * 5000}, "release"),  # int() refuses it past 4,300 digits
        ({"total_quota": 2**62}, "total_quota"),  # the settings would refuse every later save
        ({"daily_quota": 100_001}, "daily_quota"),
        ({"primary_metric": "rouge"}, "primary_metric"),
        ({"metric_options": {"max_order": "many"}}, "metric_options"),
        ({"companion_metrics": ["rouge"]}, "companion_metrics"),
        ({"slug": "new"}, "slug"),
        ({"split": "train"}, "split"),
    ],
)
def test_bad_leaderboards_are_refused(make_release, client_for, owner, fields, field):
    make_release()
    response = client_for(owner).post("/api/v1/leaderboards/", new_board(**fields), format="json")
    assert response.status_code == 400 and field in response.json()
    assert opened_boards() == []


def test_only_the_datasets_owner_opens_one(make_release, client_for, other, rater):
    release = make_release()
    post = lambda user: client_for(user).post("/api/v1/leaderboards/", new_board(), format="json")
    assert post(None).status_code in (401, 403)
    assert post(rater).status_code == 403
    assert post(other).status_code == 403
    Dataset.objects.filter(pk=release.dataset_id).update(visibility="private")
    assert post(other).status_code == 400  # a private dataset's release does not exist for them
    assert opened_boards() == []


@pytest.mark.slow  # the whole OpenAPI schema: make test and CI, not test-fast
def test_the_schema_documents_the_leaderboard_endpoints(client_for):
    schema = client_for(None).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for path in [
        "/api/v1/leaderboards/",
        "/api/v1/leaderboards/{slug}/",
        "/api/v1/leaderboards/{slug}/compare/",
        "/api/v1/leaderboards/{slug}/export/",
    ]:
        assert path in schema["paths"], path
