"""The leaderboard's rows: order, rank groups from stored statistics, who sees what."""

from types import SimpleNamespace

import numpy as np
import pytest

from scoring.leaderboards.models import Team
from scoring.leaderboards.selectors import leaderboard_table as table_module
from scoring.leaderboards.selectors.leaderboard_table import leaderboard_table, rank_groups
from scoring.metrics import get_metric
from tests.scoring.conftest import GOOD, NONSENSE, PERFECT

pytestmark = pytest.mark.django_db


def bleu_rows(n_items: int, matches: list[float]) -> np.ndarray:
    """n identical BLEU rows: 10-word hypotheses and references, `matches` per order."""
    row = [10, 10, *matches, 10, 9, 8, 7]
    return np.tile(np.array(row, dtype=float), (n_items, 1))


def test_two_clearly_different_systems_are_two_groups():
    bleu = get_metric("bleu")
    strong = bleu_rows(50, [10, 9, 8, 7])
    weak = bleu_rows(50, [3, 1, 0, 0])
    assert rank_groups(bleu, [strong, weak]) == [1, 2]


def test_two_identical_systems_share_a_group():
    bleu = get_metric("bleu")
    rows = bleu_rows(50, [8, 6, 4, 2])
    assert rank_groups(bleu, [rows, rows.copy()]) == [1, 1]


def test_a_group_is_measured_from_its_first_entry():
    bleu = get_metric("bleu")
    rng = np.random.default_rng(0)
    top = bleu_rows(200, [10, 9, 8, 7])
    # Identical to the top except on a few items: not significantly different.
    near = top.copy()
    near[:3, 2:6] = 0
    far = bleu_rows(200, [2, 1, 0, 0])
    far[:, 2] += rng.integers(0, 2, size=200)
    assert rank_groups(bleu, [top, near, far, far.copy()]) == [1, 1, 2, 2]


def test_rows_are_sorted_best_first_and_grouped(make_leaderboard, other, scored):
    board = make_leaderboard()
    scored(board, other, NONSENSE, method="nonsense")
    staff_team = Team.objects.create(name="perfect-team")
    staff_team.members.add(other)
    scored(board, other, PERFECT, method="perfect", team_name="perfect-team")
    table = leaderboard_table(leaderboard=board, user=other)
    assert [r.submission.method for r in table.rows] == ["perfect", "nonsense"]
    assert [r.position for r in table.rows] == [1, 2]
    assert table.rows[0].primary.score == pytest.approx(100.0)
    assert table.rows[0].primary.ci_low <= table.rows[0].primary.score
    assert [r.group for r in table.rows] == [1, 2]
    assert table.signature.startswith("dbleu|def:paper")


def test_lower_is_better_metrics_sort_the_other_way(make_leaderboard, other, scored, monkeypatch):
    board = make_leaderboard()
    scored(board, other, PERFECT, method="perfect")
    team = Team.objects.create(name="second")
    team.members.add(other)
    scored(board, other, NONSENSE, method="nonsense", team_name="second")
    monkeypatch.setattr(
        table_module, "get_entry", lambda name: SimpleNamespace(higher_is_better=False)
    )
    table = leaderboard_table(leaderboard=board, user=other)
    assert [r.submission.method for r in table.rows] == ["nonsense", "perfect"]


def test_dev_boards_show_the_latest_per_team_and_every_baseline(
    make_leaderboard, owner, other, scored
):
    board = make_leaderboard(companion_metrics=["bleu"])
    scored(board, owner, GOOD, method="baseline one", is_baseline=True)
    scored(board, owner, NONSENSE, method="baseline two", is_baseline=True)
    scored(board, other, GOOD, method="first try")
    scored(board, other, PERFECT, method="second try")
    table = leaderboard_table(leaderboard=board, user=other)
    methods = [r.submission.method for r in table.rows]
    assert sorted(methods) == ["baseline one", "baseline two", "second try"]
    row = table.rows[0]
    assert list(row.scores) == ["dbleu", "bleu"] and row.companions[0].metric == "bleu"


def test_private_submissions_only_to_their_team_and_the_owner(
    make_leaderboard, owner, other, staff, rater, scored
):
    from django.contrib.auth.models import AnonymousUser

    board = make_leaderboard()
    scored(board, other, GOOD, method="secret sauce", is_public=False)
    for user, sees in [
        (other, True),
        (owner, True),
        (staff, True),
        (rater, False),
        (AnonymousUser(), False),
    ]:
        methods = [
            r.submission.method for r in leaderboard_table(leaderboard=board, user=user).rows
        ]
        assert ("secret sauce" in methods) is sees, user


def test_test_boards_show_the_picked_submissions(make_leaderboard, other, scored):
    from tests.scoring.conftest import TEST_PERFECT, TEST_POOR

    board = make_leaderboard(split="test", slug="hidden", counted_per_team=2)
    picked = scored(board, other, TEST_PERFECT, method="picked")
    unpicked = scored(board, other, TEST_POOR, method="unpicked")
    unpicked.counts = False
    unpicked.save()
    methods = [r.submission.method for r in leaderboard_table(leaderboard=board, user=other).rows]
    assert methods == [picked.method]


def test_rank_groups_not_stored_are_cached_per_state(make_leaderboard, other, scored, monkeypatch):
    board = make_leaderboard()
    scored(board, other, GOOD)
    calls = []
    real = table_module.significance_compute
    monkeypatch.setattr(
        table_module, "significance_compute", lambda *a: calls.append(1) or real(*a)
    )
    board.rank_groups = []  # as for a view of the board that was not stored
    leaderboard_table(leaderboard=board, user=other)
    leaderboard_table(leaderboard=board, user=other)
    assert len(calls) == 1
    team = Team.objects.create(name="newcomer")
    team.members.add(other)
    scored(board, other, PERFECT, team_name="newcomer")
    assert len(calls) == 2  # stored as the score landed
    board.rank_groups = []
    leaderboard_table(leaderboard=board, user=other)
    assert len(calls) == 3
