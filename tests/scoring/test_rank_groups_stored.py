"""Rank groups are worked out when a score lands, stored on the board, and read by the pages."""

import pytest
from django.db import connection

from annotate.accounts.models import Role
from annotate.accounts.services import user_create
from scoring.leaderboards.models import Leaderboard, Listing, Submission
from scoring.leaderboards.selectors import leaderboard_table as table_module
from scoring.leaderboards.selectors.leaderboard_table import leaderboard_table
from scoring.leaderboards.services.standing import submission_set_counts
from tests.conftest import PASSWORD
from tests.scoring.conftest import GOOD, NONSENSE, PERFECT, TEST_PERFECT, TEST_POOR

pytestmark = pytest.mark.django_db


@pytest.fixture
def bootstraps(monkeypatch):
    """The rank-group computations made from now on."""
    calls = []
    real = table_module.significance_compute
    monkeypatch.setattr(
        table_module, "significance_compute", lambda *a: calls.append(1) or real(*a)
    )
    return calls


def state_of(board) -> list[dict]:
    return Leaderboard.objects.get(pk=board.pk).rank_groups


def primary_score_pk(submission: Submission) -> int:
    return submission.scores.get(metric=submission.leaderboard.primary_metric).pk


def test_a_finished_submission_updates_the_stored_groups(make_leaderboard, other, scored):
    board = make_leaderboard()
    good = scored(board, other, GOOD)
    ranked_alone = [[good.pk, primary_score_pk(good)]]
    assert state_of(board) == [{"ranked": ranked_alone, "groups": [1], "p": [[1.0]]}]
    newcomer = user_create(username="newcomer", password=PASSWORD, role=Role.RESEARCHER)
    perfect = scored(board, newcomer, PERFECT)
    nonsense = scored(board, user_create(username="late", password=PASSWORD), NONSENSE)
    [stored] = state_of(board)  # no private entry: the owner's view is the public's
    ranked = [[s.pk, primary_score_pk(s)] for s in (perfect, good, nonsense)]
    assert stored["ranked"] == ranked
    assert stored["groups"][0] == 1 and stored["groups"][-1] > 1
    assert len(stored["p"]) == 3 and stored["p"][0][2] == stored["p"][2][0] < 0.05


def test_the_table_reads_stored_groups_without_a_bootstrap(
    make_leaderboard, other, scored, bootstraps
):
    board = make_leaderboard()
    scored(board, other, PERFECT)
    scored(board, user_create(username="late", password=PASSWORD), NONSENSE)
    assert len(bootstraps) == 2  # once as each score landed
    fresh = Leaderboard.objects.get(pk=board.pk)  # as a request loads it
    table = leaderboard_table(leaderboard=fresh, user=other)
    assert [row.group for row in table.rows] == [1, 2]
    assert len(bootstraps) == 2


def test_a_team_view_with_its_private_entry_is_computed_once_then_cached(
    make_leaderboard, other, scored, bootstraps
):
    board = make_leaderboard()
    scored(board, user_create(username="late", password=PASSWORD), NONSENSE)
    scored(board, other, GOOD, is_public=False)
    scored(board, user_create(username="third", password=PASSWORD), PERFECT, is_public=False)
    stored_views = len(bootstraps)
    assert len(state_of(board)) == 2  # the owner's (every entry) and the public's
    fresh = Leaderboard.objects.get(pk=board.pk)
    for _ in range(2):
        rows = leaderboard_table(leaderboard=fresh, user=other).rows
    assert len(rows) == 2 and len(bootstraps) == stored_views + 1


def test_picking_what_counts_on_a_test_board_restores_the_groups(make_leaderboard, other, scored):
    board = make_leaderboard(split="test", slug="hidden", counted_per_team=2)
    first = scored(board, other, TEST_POOR)
    second = scored(board, other, TEST_PERFECT)
    submission_set_counts(submission=second, user=other, counts=False)
    [stored] = state_of(board)
    assert stored["ranked"] == [[first.pk, primary_score_pk(first)]]


@pytest.mark.slow  # a query count as a board grows by scored entries: make test and CI only
def test_the_page_shows_stored_groups_in_queries_independent_of_the_entries(
    make_leaderboard, scored, client_for, bootstraps, django_assert_max_num_queries
):
    board = make_leaderboard()
    hyps = [PERFECT, GOOD, NONSENSE]

    def add_entries(count: int, start: int) -> None:
        for k in range(start, start + count):
            user = user_create(username=f"team{k}", password=PASSWORD)
            scored(board, user, hyps[k % 3], method=f"system {k}")

    def page_queries() -> int:
        before = len(bootstraps)
        with django_assert_max_num_queries(60) as queries:
            page = client_for(None).get("/leaderboards/board/").content.decode()
        assert len(bootstraps) == before, "the page ran a bootstrap"
        assert "system" in page
        return len(queries)

    add_entries(2, 0)
    few = page_queries()
    add_entries(4, 2)
    assert page_queries() == few
    groups = [r.group for r in leaderboard_table(leaderboard=board, user=board.owner).rows]
    assert groups[0] == 1 and None not in groups


def test_the_bootstraps_run_before_the_transaction_that_stores_them(
    make_leaderboard, other, scored, monkeypatch
):
    # On SQLite a transaction holds the one write lock from its start: seconds of bootstraps
    # in one kept every rater waiting. The test's own transaction is the outermost one here.
    board = make_leaderboard()
    scored(board, other, GOOD)
    depths = []
    real = table_module.significance_compute
    monkeypatch.setattr(
        table_module,
        "significance_compute",
        lambda *a: depths.append(len(connection.savepoint_ids)) or real(*a),
    )
    scored(board, user_create(username="late", password=PASSWORD), NONSENSE)
    assert depths == [0]


def test_entries_that_change_while_the_groups_are_worked_out_are_worked_out_again(
    make_leaderboard, other, scored, monkeypatch
):
    board = make_leaderboard()
    good = scored(board, other, GOOD)
    real = table_module.significance_compute
    calls = []

    def meanwhile(*args):
        if not calls:  # the owner hides the good entry while the first bootstrap runs
            Submission.objects.filter(pk=good.pk).update(listing=Listing.HIDDEN)
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(table_module, "significance_compute", meanwhile)
    perfect = scored(board, user_create(username="late", password=PASSWORD), PERFECT)
    [stored] = state_of(board)  # the groups of the entries as they are now, not as they were
    assert stored["ranked"] == [[perfect.pk, primary_score_pk(perfect)]] and len(calls) == 2
