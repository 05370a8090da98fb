"""One significance answer: the board's rank groups and the compare page come from the same
paired bootstrap with the same Holm–Bonferroni correction, and agree for every pair."""

import re
from itertools import combinations

import numpy as np
import pytest

from annotate.accounts.models import Role
from scoring.leaderboards.models import Team
from scoring.leaderboards.selectors.significance import BoardSignificance, significance_compute
from scoring.metrics import get_metric
from tests.conftest import PASSWORD, leaderboard_of, release_of, user_of
from tests.scoring.conftest import GOOD, NONSENSE, PERFECT
from tests.scoring.world_kit import scored_now, shared_scoring_world


def bleu_rows(rng, n_items: int, quality: float) -> np.ndarray:
    """Random BLEU statistics rows whose matches grow with `quality` (0–1)."""
    rows = []
    for _ in range(n_items):
        length = 10
        matches = [int(rng.binomial(length - n, min(quality * (1 - 0.1 * n), 1))) for n in range(4)]
        rows.append([length, length, *matches, 10, 9, 8, 7])
    return np.array(rows, dtype=float)


def test_a_chain_of_ties_is_one_group_and_says_so():
    # A ~ B and B ~ C but A ≠ C: no line can be drawn, so one group; A and C still differ.
    p = [[1.0, 0.5, 0.001], [0.5, 1.0, 0.5], [0.001, 0.5, 1.0]]
    board = BoardSignificance(p)
    assert board.groups == [1, 1, 1]
    assert board.significant(0, 2) and not board.significant(0, 1)


def test_groups_are_cut_only_where_everything_across_differs():
    p = np.full((4, 4), 0.0001)
    np.fill_diagonal(p, 1.0)
    p[0, 1] = p[1, 0] = 0.6  # the top two tie
    p[2, 3] = p[3, 2] = 0.6  # and the bottom two
    assert BoardSignificance(p.tolist()).groups == [1, 1, 2, 2]


@pytest.mark.parametrize("seed", range(6))
def test_different_groups_always_differ_significantly(seed):
    bleu = get_metric("bleu")
    rng = np.random.default_rng(seed)
    qualities = sorted(rng.uniform(0.3, 0.9, size=6), reverse=True)
    systems = [bleu_rows(rng, 40, q) for q in qualities]
    scores = [float(bleu.scores_from_stats(s.sum(axis=0))) for s in systems]
    order = np.argsort(scores)[::-1]
    board = significance_compute(bleu, [systems[k] for k in order], sorted(scores, reverse=True))
    for i, j in combinations(range(6), 2):
        if board.groups[i] != board.groups[j]:
            assert board.significant(i, j)
        if not board.significant(i, j):
            assert board.groups[i] == board.groups[j]


def test_equal_scores_are_never_significant():
    bleu = get_metric("bleu")
    rng = np.random.default_rng(3)
    rows = bleu_rows(rng, 30, 0.7)
    board = significance_compute(bleu, [rows, rows.copy()], [50.0, 50.0])
    assert board.p == [[1.0, 1.0], [1.0, 1.0]] and board.groups == [1, 1]


def _five_entries(owner):
    """A dev board of five entries, two of them near ties, one private to its team."""
    from annotate.accounts.services import user_create

    other = user_of("other", Role.RESEARCHER)
    board = leaderboard_of(owner, release=release_of(owner), companion_metrics=["bleu"])
    scored_now(board, owner, NONSENSE, method="nonsense baseline", is_baseline=True)
    scored_now(board, owner, GOOD, method="good baseline", is_baseline=True)
    scored_now(board, other, PERFECT, method="oracle")
    near = ["the cat sat on the mat", "it was a great match", "see you then", "i love cheese pizza"]
    second = user_create(username="second", password=PASSWORD, role="researcher")
    scored_now(board, second, near, method="near oracle")
    team = Team.objects.create(name="quiet")
    team.members.add(other)
    scored_now(
        board, other, GOOD[:2] + PERFECT[2:], method="quiet one", team_name="quiet", is_public=False
    )
    return {"five_entries": board}


# Built once for the module: each test reads the rows again in a transaction of its own.
shared, world, five_entries = shared_scoring_world(_five_entries, "five_entries")


def _board_groups(client, board) -> dict[int, int]:
    html = client.get(f"/leaderboards/{board.slug}/").content.decode()
    rows = re.findall(r'data-submission="(\d+)">.*?<td data-sort="\d+">(\d+|–)</td>', html, re.S)
    return {int(pk): int(group) for pk, group in rows if group != "–"}


def _compare_answer(client, board, a, b) -> tuple[bool, bool, str, bool]:
    html = client.get(f"/leaderboards/{board.slug}/compare/?a={a}&b={b}").content.decode()
    found = re.search(r'data-significant="(\w+)" data-same-group="(\w+)"', html)
    assert found, html
    method = re.search(r'id="answer-method">(.*?)</p>', html, re.S).group(1)
    explained = "They share a group although they differ significantly" in html
    return found.group(1) == "yes", found.group(2) == "yes", method, explained


@pytest.mark.slow  # every pair's page: make test and CI, not test-fast
@pytest.mark.parametrize("who", ["anonymous", "other", "owner"])
def test_for_every_pair_the_board_and_the_compare_page_agree(
    five_entries, client_for, user_named, who
):
    board, client = five_entries, client_for(user_named(who))
    groups = _board_groups(client, board)
    assert len(groups) == (5 if who != "anonymous" else 4)  # the private entry: team and owner
    api_board = client.get(f"/api/v1/leaderboards/{board.slug}/").json()
    assert api_board["rank_groups"]["test"].startswith("paired bootstrap")
    assert {row["submission"]: row["group"] for row in api_board["rows"]} == groups
    pairs = len(groups) * (len(groups) - 1) // 2
    seen = set()
    for a, b in combinations(groups, 2):
        significant, same_group, method, explained = _compare_answer(client, board, a, b)
        assert same_group == (groups[a] == groups[b]), (a, b)
        if not same_group:
            assert significant, (a, b)  # different groups always differ significantly
        # Significance is not transitive: where one group holds a significant pair, the compare
        # page says why instead of contradicting the board.
        assert explained == (significant and same_group), (a, b)
        seen.add((significant, same_group))
        assert "paired bootstrap" in method and f"Holm–Bonferroni over the {pairs} pairs" in method
        answer = client.get(f"/api/v1/leaderboards/{board.slug}/compare/?a={a}&b={b}").json()
        answer = answer["answer"]
        assert (answer["significant"], answer["same_group"]) == (significant, same_group)
        assert (answer["group_a"], answer["group_b"]) == (groups[a], groups[b])
    assert (True, False) in seen and (False, True) in seen  # the world has both kinds of pair


def test_both_pages_state_the_test_and_the_correction(five_entries, client_for):
    board_page = client_for(None).get("/leaderboards/board/").content.decode()
    assert "paired bootstrap resampling" in board_page
    assert "Holm–Bonferroni over the 6 pairs of ranked entries" in board_page


def test_a_pair_off_the_board_is_a_single_uncorrected_test(
    make_release, make_leaderboard, other, scored, client_for
):
    from annotate.accounts.services import user_create

    board = make_leaderboard(release=make_release(slug="hidden-data"), split="test", slug="hidden")
    from tests.scoring.conftest import TEST_PERFECT, TEST_POOR

    counted = scored(board, other, TEST_POOR, method="counted")
    spare = scored(board, other, TEST_PERFECT, method="spare")  # the one pick is taken
    rival = scored(board, user_create(username="rival", password=PASSWORD), TEST_PERFECT)
    assert not spare.counts
    body = client_for(other).get(f"/api/v1/leaderboards/hidden/compare/?a={spare.pk}&b={rival.pk}")
    answer = body.json()["answer"]
    assert answer["on_board"] is False and answer["pairs"] == 1
    assert answer["group_a"] is None and answer["same_group"] is None
    assert answer["correction"].startswith("none")
    body = client_for(other).get(
        f"/api/v1/leaderboards/hidden/compare/?a={counted.pk}&b={rival.pk}"
    )
    assert body.json()["answer"]["on_board"] is True
