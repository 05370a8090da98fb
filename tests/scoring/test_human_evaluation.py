"""From the leaderboard to people: chosen submissions become an output campaign in one step."""

import pytest

from annotate.accounts.models import Role
from annotate.datasets.models import Item, Split
from annotate.judgments.models import EvalSystem
from annotate.rating.models import Campaign
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_join
from tests.conftest import DEFAULT_RELEASE_ITEMS, leaderboard_of, release_of, user_of
from tests.scoring.conftest import GOOD, NONSENSE, PERFECT, TEST_PERFECT, TEST_POOR
from tests.scoring.world_kit import scored_now, shared_scoring_world

pytestmark = pytest.mark.django_db
API = "/api/v1/leaderboards/{}/human-evaluation/"
PAGE = "/leaderboards/{}/human-evaluation/"


def live_items(release):
    """The release's items in its live dataset too (campaigns rate live items)."""
    for position, (split, external_id, _) in enumerate(DEFAULT_RELEASE_ITEMS):
        row, _ = Split.objects.get_or_create(dataset=release.dataset, name=split)
        Item.objects.create(split=row, external_id=external_id, message="m", position=position)


def _board_with_three(owner):
    """A dev board with live items and three scored submissions (one of another team)."""
    board = leaderboard_of(owner, release=release_of(owner))
    live_items(board.release)
    other = user_of("other", Role.RESEARCHER)
    three = [
        scored_now(board, other, PERFECT, method="exact"),
        scored_now(board, owner, GOOD, method="close"),
        scored_now(board, owner, NONSENSE, method="noise"),
    ]
    return {"board": board, "three": three}


# Built once for the module: each test reads the rows again in a transaction of its own.
shared, world, board, three = shared_scoring_world(_board_with_three, "board", "three")


def post(client, slug, **body):
    return client.post(API.format(slug), body, format="json")


def test_the_owner_gets_a_likert_campaign_ready_for_raters(board, three, owner, client_for):
    exact, close, _ = three
    response = post(
        client_for(owner), "board", submissions=[exact.pk, close.pk], ratings_per_unit=2
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    campaign = Campaign.objects.get(pk=body["id"])
    assert (body["subject"], body["mode"], body["split"], body["status"]) == (
        "outputs",
        "likert",
        "dev",
        "open",
    )
    assert body["systems"] == sorted([f"{exact.team.name}: exact", f"{close.team.name}: close"])
    assert body["name"] == "Human evaluation: Board" and body["ratings_per_unit"] == 2
    assert body["join_url"].endswith(f"/r/{campaign.token}/")
    assert campaign.owner == owner and campaign.dataset == board.release.dataset
    # A slot per system and scored dev item (d1, d2, d3, d5), each wanting 2 ratings.
    assert sorted(campaign.slots.values_list("item__external_id", "wanted")) == sorted(
        [(i, 2) for i in ("d1", "d2", "d3", "d5")] * 2
    )
    sources = set(campaign.systems.values_list("source_ref", flat=True))
    assert sources == {f"submission:{exact.pk}", f"submission:{close.pk}"}
    # Ready to open: a rater who joins gets an output to rate at once.
    person = user_of("person", "rater")
    campaign_join(campaign=campaign, rater=person)
    first = rating_next(campaign=campaign, rater=person)
    assert first is not None and first.slot.system_a_id is not None


def test_a_pairwise_campaign_rates_every_pair(board, three, owner, client_for):
    ids = [s.pk for s in three]
    response = post(client_for(owner), "board", submissions=ids, mode="pairwise", name="Pairs")
    assert response.status_code == 201, response.json()
    campaign = Campaign.objects.get(pk=response.json()["id"])
    assert campaign.name == "Pairs" and campaign.pairwise
    assert campaign.slots.count() == 3 * 4  # three pairs × four items
    assert campaign.slots.filter(system_b__isnull=True).count() == 0


@pytest.mark.parametrize(
    "body, field",
    [
        ({"mode": "ranked"}, "mode"),
        ({"ratings_per_unit": 0}, "ratings_per_unit"),
        ({"ratings_per_unit": "many"}, "ratings_per_unit"),
        ({"name": "x" * 201}, "name"),
        ({"submissions": []}, "submissions"),
        ({"submissions": [987654]}, "submissions"),
        ({"submissions": "all"}, "submissions"),
        ({"mode": "pairwise", "one": True}, "submissions"),
    ],
)
def test_bad_input_names_the_field(board, three, owner, client_for, body, field):
    body = {"submissions": [s.pk for s in three], **body}
    if body.pop("one", False):
        body["submissions"] = body["submissions"][:1]
    response = client_for(owner).post(API.format("board"), body, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert not Campaign.objects.exists() and not EvalSystem.objects.exists()


def test_unfinished_or_foreign_submissions_are_refused(
    board, three, scored, owner, client_for, make_release, make_leaderboard
):
    from scoring.leaderboards.models import Submission

    Submission.objects.filter(pk=three[0].pk).update(status="failed")
    second = make_leaderboard(release=make_release(slug="other-data"), slug="second")
    elsewhere = scored(second, owner, PERFECT)
    for pk in (three[0].pk, elsewhere.pk):
        response = post(client_for(owner), "board", submissions=[pk])
        assert response.status_code == 400 and str(pk) in str(response.json()["submissions"])
    assert not Campaign.objects.exists()


def test_a_dataset_without_live_items_is_refused_plainly(
    make_leaderboard, make_release, scored, owner, client_for
):
    # A board of its own (apart from the module's): its dataset has the release but no live items.
    board = make_leaderboard(release=make_release(slug="bare"), slug="bare")
    submission = scored(board, owner, PERFECT)
    response = post(client_for(owner), "bare", submissions=[submission.pk])
    assert response.status_code == 400 and "no dev items" in str(response.json())
    assert not Campaign.objects.exists() and not EvalSystem.objects.exists()


@pytest.mark.parametrize(
    "who, code", [("other", 403), ("rater", 403), ("anonymous", 403), ("staff", 201)]
)
def test_only_the_boards_owner_or_staff(board, three, client_for, request, who, code):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = post(client_for(user), "board", submissions=[three[0].pk])
    assert response.status_code == code
    assert Campaign.objects.exists() == (code == 201)
    # Refused before the body is read: a bad body tells an outsider nothing either.
    if code == 403:
        assert post(client_for(user), "board", submissions="x").status_code == 403


def test_outputs_that_are_hidden_references_are_refused(
    make_leaderboard, make_release, scored, owner, client_for
):
    board = make_leaderboard(release=make_release(slug="hidden-data"), split="test", slug="hidden")
    live_items(board.release)
    oracle = scored(board, owner, TEST_PERFECT, method="oracle")
    honest = scored(board, owner, TEST_POOR, method="honest")
    response = post(client_for(owner), "hidden", submissions=[honest.pk, oracle.pk])
    assert response.status_code == 400
    [reason] = response.json()["submissions"]
    assert f"Submission {oracle.pk}'s outputs are hidden test references on 2 items" in reason
    assert "(t1, t2)" in reason and "reveal the test split first" in reason
    assert not EvalSystem.objects.exists()
    # Outputs on the hidden split that show no reference may be rated by the owner's raters.
    response = post(client_for(owner), "hidden", submissions=[honest.pk])
    assert response.status_code == 201, response.json()
    assert response.json()["split"] == "test"


def test_the_same_method_twice_makes_two_systems(board, scored, owner, client_for):
    first = scored(board, owner, PERFECT, method="same")
    again = scored(board, owner, GOOD, method="same")
    response = post(client_for(owner), "board", submissions=[first.pk, again.pk])
    assert response.status_code == 201, response.json()
    team = first.team.name
    assert sorted(response.json()["systems"]) == [
        f"{team}: same",
        f"{team}: same (submission {again.pk})",
    ]
    texts = {
        s.source_ref: sorted(s.outputs.values_list("text", flat=True))
        for s in EvalSystem.objects.all()
    }
    assert texts == {
        f"submission:{first.pk}": sorted(PERFECT),
        f"submission:{again.pk}": sorted(GOOD),
    }


def test_the_leaderboard_page_offers_checkboxes_to_its_owner_only(
    board, three, owner, other, client_for
):
    mine = client_for(owner).get("/leaderboards/board/").content.decode()
    assert f'name="submissions" value="{three[0].pk}" form="human-evaluation"' in mine
    assert 'action="/leaderboards/board/human-evaluation/"' in mine
    theirs = client_for(other).get("/leaderboards/board/").content.decode()
    assert 'name="submissions"' not in theirs and "human-evaluation" not in theirs


def test_the_page_starts_the_campaign_and_goes_to_it(board, three, owner, client_for):
    client = client_for(owner)
    body = {"submissions": [three[0].pk, three[1].pk], "mode": "pairwise", "ratings_per_unit": 1}
    response = client.post(PAGE.format("board"), body)
    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/campaigns/{campaign.pk}/"
    assert campaign.pairwise and campaign.slots.count() == 4


def test_the_page_shows_problems_with_the_choices_kept(board, three, owner, client_for):
    client = client_for(owner)
    form = client.get(PAGE.format("board"))
    assert form.status_code == 200 and f'value="{three[2].pk}"' in form.content.decode()
    bad = client.post(
        PAGE.format("board"),
        {"submissions": [three[0].pk], "mode": "pairwise", "ratings_per_unit": 3},
    )
    assert bad.status_code == 400 and "two or more" in bad.content.decode()
    missing = client.post(PAGE.format("board"), {"mode": "likert", "ratings_per_unit": 3})
    assert missing.status_code == 400 and "This field is required" in missing.content.decode()
    assert not Campaign.objects.exists()


@pytest.mark.parametrize("who, code", [("other", 403), ("rater", 403), ("anonymous", 302)])
def test_the_page_is_the_owners(board, three, client_for, request, who, code):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    client = client_for(user)
    assert client.get(PAGE.format("board")).status_code == code
    body = {"submissions": [three[0].pk], "mode": "likert", "ratings_per_unit": 1}
    assert client.post(PAGE.format("board"), body).status_code == code
    assert not Campaign.objects.exists()
