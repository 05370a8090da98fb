"""A submission's standing: picks that count (test boards, up to the board's limit), hidden by the
owner or withdrawn by its team with a reason the team reads, baselines marked by the owner; every
state reached and left."""

import pytest
from django.contrib.auth.models import AnonymousUser

from annotate.accounts.models import Role
from annotate.accounts.services import user_create
from scoring.leaderboards.models import Listing, Submission
from scoring.leaderboards.selectors.leaderboard_table import leaderboard_table
from scoring.leaderboards.services.standing import (
    submission_hide,
    submission_reinstate,
    submission_restore,
    submission_set_baseline,
    submission_set_counts,
    submission_withdraw,
)
from tests.conftest import PASSWORD, leaderboard_of, release_of, user_of
from tests.scoring.conftest import GOOD, NONSENSE, PERFECT, TEST_PERFECT, TEST_POOR
from tests.scoring.world_kit import scored_now, shared_scoring_world

pytestmark = pytest.mark.django_db


def methods(board, user) -> list[str]:
    return [r.submission.method for r in leaderboard_table(leaderboard=board, user=user).rows]


def change(client, submission, **data):
    return client.post(f"/leaderboards/submissions/{submission.pk}/change/", data)


def _board_with_an_entry(owner):
    """A dev board (of its own dataset: the tests' other boards are on "chat") and another
    team's scored entry."""
    board = leaderboard_of(owner, release=release_of(owner, slug="standing"))
    other = user_of("other", Role.RESEARCHER)
    return {"board": board, "entry": scored_now(board, other, GOOD, method="junk upload")}


# Built once for the module: each test reads the rows again in a transaction of its own.
shared, world, board, entry = shared_scoring_world(_board_with_an_entry, "board", "entry")


def test_the_owner_hides_with_a_reason_the_team_reads(board, entry, owner, other, client_for):
    response = change(client_for(owner), entry, listing="hidden", reason="60 MB of junk")
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.listing == Listing.HIDDEN and entry.listing_changed_by == owner
    for viewer in (owner, other, AnonymousUser()):
        assert "junk upload" not in methods(board, viewer)
    team_page = client_for(other).get(f"/leaderboards/submissions/{entry.pk}/").content.decode()
    assert "Hidden by the leaderboard&#x27;s owner" in team_page and "60 MB of junk" in team_page
    board_page = client_for(other).get("/leaderboards/board/").content.decode()
    assert 'id="unlisted"' in board_page and "60 MB of junk" in board_page
    public_page = client_for(None).get("/leaderboards/board/").content.decode()
    assert "60 MB of junk" not in public_page and "junk upload" not in public_page
    api = client_for(other).get(f"/api/v1/submissions/{entry.pk}/").json()
    assert (api["listing"], api["listing_reason"]) == ("hidden", "60 MB of junk")
    assert change(client_for(owner), entry, listing="listed").status_code == 302
    assert "junk upload" in methods(board, other)


def test_the_team_withdraws_and_reinstates_its_own(board, entry, other, client_for):
    client = client_for(other)
    patch = client.patch(
        f"/api/v1/submissions/{entry.pk}/",
        {"listing": "withdrawn", "reason": "a bug in our decoder"},
        format="json",
    )
    assert patch.status_code == 200 and patch.json()["listing"] == "withdrawn"
    assert methods(board, other) == []
    assert "a bug in our decoder" in client.get("/leaderboards/board/").content.decode()
    back = client.patch(f"/api/v1/submissions/{entry.pk}/", {"listing": "listed"}, format="json")
    assert back.json()["listing"] == "listed" and methods(board, other) == ["junk upload"]


def test_withdrawing_the_latest_brings_back_the_previous_on_a_dev_board(board, other, scored):
    first = scored(board, other, NONSENSE, method="first")
    latest = scored(board, other, PERFECT, method="latest")
    assert methods(board, other) == ["latest"]
    submission_withdraw(submission=latest, user=other)
    assert methods(board, other) == ["first"]
    submission_reinstate(submission=latest, user=other)
    assert methods(board, other) == ["latest"] and first.listing == Listing.LISTED


@pytest.mark.parametrize(
    ("who", "data", "status"),
    [
        ("owner", {"listing": "hidden", "reason": "spam"}, 302),
        ("other", {"listing": "hidden", "reason": "spam"}, 403),  # the team cannot hide
        ("owner", {"listing": "withdrawn"}, 403),  # the owner cannot withdraw for the team
        ("other", {"listing": "withdrawn"}, 302),
        ("owner", {"is_baseline": "yes"}, 302),
        ("other", {"is_baseline": "yes"}, 403),
        ("rater", {"listing": "hidden", "reason": "spam"}, 404),
        ("staff", {"listing": "hidden", "reason": "spam"}, 302),
    ],
)
def test_who_may_change_what(entry, client_for, user_named, who, data, status):
    assert change(client_for(user_named(who)), entry, **data).status_code == status


def test_a_stranger_and_the_anonymous_see_nothing_to_change(entry, client_for, make_rater):
    stranger = user_create(username="stranger", password=PASSWORD, role="researcher")
    assert change(client_for(stranger), entry, listing="withdrawn").status_code == 404
    anonymous = change(client_for(None), entry, listing="withdrawn")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    api = client_for(None).patch(f"/api/v1/submissions/{entry.pk}/", {"listing": "withdrawn"})
    assert api.status_code == 403
    assert client_for(stranger).patch(f"/api/v1/submissions/{entry.pk}/", {}).status_code == 404
    assert Submission.objects.get(pk=entry.pk).listing == Listing.LISTED


@pytest.mark.parametrize(
    ("who", "data", "field"),
    [
        ("owner", {"listing": "hidden", "reason": "  "}, "reason"),
        ("owner", {"listing": "hidden", "reason": "x" * 501}, "reason"),
        ("owner", {"listing": "listed"}, "listing"),  # listed already
        ("owner", {"listing": "gone"}, "listing"),
        ("other", {"counts": "yes"}, "counts"),  # a dev board has no picks
        ("other", {"counts": "maybe"}, "counts"),
        ("owner", {}, "__all__"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(entry, client_for, user_named, who, data, field):
    page = change(client_for(user_named(who)), entry, **data)
    assert page.status_code == 400
    text = page.content.decode()
    assert 'id="change-errors"' in text and (field == "__all__" or f"{field}:" in text)
    api_data = {k: {"yes": True}.get(v, v) for k, v in data.items()}
    api = client_for(user_named(who)).patch(
        f"/api/v1/submissions/{entry.pk}/", api_data, format="json"
    )
    if data:
        assert api.status_code == 400 and field in api.json(), api.json()


def test_baselines_are_marked_shown_apart_and_take_no_pick(
    make_leaderboard, owner, other, scored, client_for
):
    board = make_leaderboard(split="test", slug="hidden")
    mine = scored(board, owner, TEST_POOR, method="owner's system")
    assert mine.counts  # the owner's team's one pick, until it is a baseline
    patch = client_for(owner).patch(
        f"/api/v1/submissions/{mine.pk}/", {"is_baseline": True}, format="json"
    )
    assert patch.json()["is_baseline"] is True and patch.json()["counts"] is False
    page = client_for(None).get("/leaderboards/hidden/").content.decode()
    assert 'class="baseline"' in page and 'class="badge baseline-badge">baseline' in page
    assert methods(board, other) == ["owner's system"]
    submission_set_baseline(submission=mine, user=owner, is_baseline=False)
    assert methods(board, other) == []  # no longer a baseline, and not picked


def test_a_team_picks_up_to_the_boards_limit(make_leaderboard, other, scored, client_for):
    board = make_leaderboard(split="test", slug="hidden")
    poor = scored(board, other, TEST_POOR, method="poor")
    best = scored(board, other, TEST_PERFECT, method="best")
    assert (poor.counts, best.counts) == (True, False)  # the first one took the one pick
    client = client_for(other)
    refused = change(client, best, counts="yes")
    assert refused.status_code == 400
    assert "counts at most 1 submission(s) a team" in refused.content.decode()
    assert "“poor”" in refused.content.decode()
    assert change(client, poor, counts="no").status_code == 302
    assert change(client, best, counts="yes").status_code == 302
    assert methods(board, other) == ["best"]
    # The limit is the owner's setting.
    board.counted_per_team = 2
    board.save()
    submission_set_counts(submission=poor, user=other, counts=True)
    assert methods(board, other) == ["best", "poor"]


def test_leaving_the_listing_drops_the_pick(make_leaderboard, owner, other, scored):
    board = make_leaderboard(split="test", slug="hidden")
    picked = scored(board, other, TEST_PERFECT, method="picked")
    submission_withdraw(submission=picked, user=other, reason="")
    picked.refresh_from_db()
    assert not picked.counts
    with pytest.raises(Exception, match="withdrawn"):
        submission_set_counts(submission=picked, user=other, counts=True)
    submission_reinstate(submission=picked, user=other)
    submission_set_counts(submission=picked, user=other, counts=True)
    assert methods(board, other) == ["picked"]


def test_every_listing_state_is_reached_and_left(entry, owner, other):
    """listed → hidden → listed → withdrawn → hidden → listed, and withdrawn → listed."""
    path = [
        (submission_hide, owner, {"reason": "spam"}, Listing.HIDDEN),
        (submission_restore, owner, {}, Listing.LISTED),
        (submission_withdraw, other, {"reason": "oops"}, Listing.WITHDRAWN),
        (submission_hide, owner, {"reason": "spam after all"}, Listing.HIDDEN),
        (submission_restore, owner, {}, Listing.LISTED),
        (submission_withdraw, other, {}, Listing.WITHDRAWN),
        (submission_reinstate, other, {}, Listing.LISTED),
    ]
    for service, user, extra, state in path:
        entry = service(submission=entry, user=user, **extra)
        assert Submission.objects.get(pk=entry.pk).listing == state, service.__name__


def test_a_hidden_one_is_not_the_teams_to_reinstate(entry, owner, other):
    submission_hide(submission=entry, user=owner, reason="spam")
    with pytest.raises(Exception, match="withdrawn"):
        submission_reinstate(submission=entry, user=other)
    with pytest.raises(Exception, match="owner"):
        submission_restore(submission=entry, user=other)


def test_every_scoring_status_is_reached_and_every_active_one_left(
    board, other, django_capture_on_commit_callbacks
):
    """queued → running → finished; queued → cancelled; running → failed → running (an
    operator's retry) → finished; running → cancelled. Finished and cancelled are final for the
    scoring; a finished one still moves on the board (listing, picks, baseline)."""
    from scoring.leaderboards.services.submissions import (
        submission_cancel,
        submission_run_ended,
        submission_run_started,
    )
    from tests.runs_kit import execute, upload

    def fresh():
        with django_capture_on_commit_callbacks(execute=False):
            return upload(board, other, GOOD)

    def status(submission):
        return Submission.objects.get(pk=submission.pk).status

    done = fresh()
    assert status(done) == "queued"
    execute(done.run_id)
    assert status(done) == "finished"

    early = fresh()
    assert submission_cancel(submission=early, user=other) and status(early) == "cancelled"

    failing = fresh()
    start_and_fail(failing, submission_run_started, submission_run_ended)
    assert status(failing) == "failed"
    submission_run_started(failing.run)  # the operator's retry starts it again
    assert status(failing) == "running"

    late = fresh()
    submission_run_started(late.run)
    assert status(late) == "running"
    assert submission_cancel(submission=late, user=other) and status(late) == "cancelled"


def start_and_fail(submission, started, ended):
    """The run engine's hooks, as a worker that starts the run and loses it would call them."""
    from core.runs.models import Run

    run = Run.objects.get(pk=submission.run_id)
    started(run)
    assert Submission.objects.get(pk=submission.pk).status == "running"
    Run.objects.filter(pk=run.pk).update(state="failed", reason="worker lost")
    ended(Run.objects.get(pk=run.pk))
