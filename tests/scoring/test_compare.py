"""Comparing two submissions: the board's answer, p-values per metric, item by item only where
references show."""

import numpy as np
import pytest
from django.contrib.auth.models import AnonymousUser

from annotate.accounts.models import Role
from scoring.leaderboards.models import Team
from scoring.leaderboards.selectors.compare import compare_submissions, stat_labels
from scoring.leaderboards.selectors.leaderboards import leaderboard_metric
from scoring.leaderboards.selectors.stored import load_matrix
from scoring.metrics import holm_adjust, paired_bootstrap
from tests.conftest import leaderboard_of, release_of, user_of
from tests.scoring.conftest import GOOD, HIDDEN, NONSENSE, PERFECT
from tests.scoring.world_kit import scored_now, shared_scoring_world

pytestmark = pytest.mark.django_db


def _three_entries(owner):
    """A dev board with two baselines and another team's oracle."""
    board = leaderboard_of(owner, release=release_of(owner), companion_metrics=["bleu"])
    scored_now(board, owner, NONSENSE, method="weak baseline", is_baseline=True)
    scored_now(board, owner, GOOD, method="good baseline", is_baseline=True)
    scored_now(board, user_of("other", Role.RESEARCHER), PERFECT, method="oracle")
    return {"board": board}


# Built once for the module: each test reads the rows again in a transaction of its own.
shared, world, board = shared_scoring_world(_three_entries, "board")


def sub(board, method):
    return board.submissions.get(method=method)


def test_p_values_equal_the_metric_library_on_the_stored_statistics(board):
    a, b = sub(board, "oracle"), sub(board, "weak baseline")
    comparison = compare_submissions(leaderboard=board, user=AnonymousUser(), a=a, b=b)
    results = {m.metric: m for m in comparison.metrics}
    assert set(results) == {"dbleu", "bleu"}
    metric = leaderboard_metric(board, "dbleu")
    stats = {
        s: load_matrix(s.scores.get(metric="dbleu").stats_file) for s in board.submissions.all()
    }
    dbleu = results["dbleu"]
    p = paired_bootstrap(metric, stats[b], stats[a]).p_value
    assert dbleu.p_bootstrap == p and dbleu.ranks_the_board
    assert not results["bleu"].ranks_the_board
    assert dbleu.score_a == pytest.approx(100.0) and dbleu.difference > 0
    # The answer corrects it for the board's three pairs, by Holm: the pair's own p among them.
    others = [
        paired_bootstrap(metric, stats[x], stats[y]).p_value
        for x, y in [
            (sub(board, "oracle"), sub(board, "good baseline")),
            (sub(board, "good baseline"), b),
        ]
    ]
    assert comparison.answer.on_board and comparison.answer.pairs == 3
    assert comparison.answer.p_value == p
    assert comparison.answer.p_adjusted == pytest.approx(holm_adjust([p, *others])[0])


def test_the_default_comparison_is_the_best_entry_against_the_best_baseline(board, client_for):
    response = client_for(None).get("/leaderboards/board/compare/")
    assert response.status_code == 200
    assert response.context["a"].method == "oracle"
    assert response.context["b"].method == "good baseline"
    named = client_for(None).get(f"/leaderboards/board/compare/?a={sub(board, 'oracle').pk}")
    assert named.context["b"].method == "good baseline"
    # A baseline's row links name it as a: b is the best other baseline, never a itself (the
    # top row of a board led by a baseline said "Choose two different submissions").
    good = sub(board, "good baseline")
    itself = client_for(None).get(f"/leaderboards/board/compare/?a={good.pk}")
    assert itself.context["b"].method == "weak baseline" and "metrics" in itself.context


def test_dev_items_side_by_side_with_weights_and_statistics(board, client_for):
    a, b = sub(board, "oracle"), sub(board, "weak baseline")
    page = client_for(None).get(f"/leaderboards/board/compare/?a={a.pk}&b={b.pk}")
    text = page.content.decode()
    assert "the cat sat on the mat" in text and "zebra quantum" in text  # both hypotheses
    assert "a cat was on the mat" in text and "0.50" in text  # a reference and its weight
    assert "hyp len, ref len, match 1" in text
    sides = page.context["sides"]
    assert [s.item.external_id for s in sides] == ["d1", "d2", "d3", "d5"]
    assert sides[0].score_a == pytest.approx(100.0) and sides[0].stats_a[0] == 6.0


def test_items_are_paginated(make_release, make_leaderboard, owner, other, scored, client_for):
    items = [("dev", f"i{k}", [(f"reference number {k}", 1.0)]) for k in range(25)]
    board = make_leaderboard(release=make_release(slug="long", items=items), slug="long")
    scored(board, owner, [f"reference number {k}" for k in range(25)], is_baseline=True)
    scored(board, other, ["nothing"] * 25)
    second = client_for(None).get("/leaderboards/long/compare/?page=2")
    assert [s.item.external_id for s in second.context["sides"]] == [f"i{k}" for k in range(20, 25)]


def test_hidden_references_stay_hidden_in_comparisons(
    make_release, make_leaderboard, owner, other, rater, scored, client_for
):
    board = make_leaderboard(release=make_release(slug="hidden-data"), split="test", slug="hidden")
    baseline = scored(board, owner, ["answer", "reference"], is_baseline=True)
    mine = scored(board, other, ["the answer is here", "another reference"])
    for user in (other, rater, None):
        for path in (
            f"/leaderboards/hidden/compare/?a={mine.pk}&b={baseline.pk}",
            f"/api/v1/leaderboards/hidden/compare/?a={mine.pk}&b={baseline.pk}",
        ):
            response = client_for(user).get(path)
            assert response.status_code == 200
            assert not [s for s in HIDDEN if s in response.content.decode()]
            assert "sides" not in (response.context or {})
    page = client_for(other).get(f"/leaderboards/hidden/compare/?a={mine.pk}&b={baseline.pk}")
    assert page.context["metrics"] and b'id="hidden-note"' in page.content


def test_private_submissions_cannot_be_compared_by_others(
    board, other, rater, owner, scored, client_for
):
    team = Team.objects.create(name="quiet")
    team.members.add(other)
    private = scored(board, other, GOOD, method="quiet one", team_name="quiet", is_public=False)
    path = f"/leaderboards/board/compare/?a={private.pk}"
    assert client_for(rater).get(path).status_code == 404
    assert client_for(None).get(path).status_code == 404
    assert client_for(other).get(path).status_code == 200
    assert client_for(owner).get(path).status_code == 200
    assert client_for(None).get("/leaderboards/board/compare/?a=nonsense").status_code == 404


def test_equal_systems_are_not_significantly_different(board, owner, scored):
    copy = scored(board, owner, PERFECT, method="oracle copy", is_baseline=True)
    comparison = compare_submissions(
        leaderboard=board, user=AnonymousUser(), a=sub(board, "oracle"), b=copy
    )
    dbleu, bleu = comparison.metrics
    assert dbleu.difference == 0 and dbleu.p_bootstrap == 1.0
    assert bleu.difference == 0 and bleu.p_bootstrap == 1.0  # a companion metric too
    assert not comparison.answer.significant and comparison.answer.same_group


def test_labels_of_bleu_statistics():
    from scoring.metrics import get_metric

    assert stat_labels(get_metric("bleu", max_order=2), 6) == [
        "hyp len",
        "ref len",
        "match 1",
        "match 2",
        "total 1",
        "total 2",
    ]
    assert stat_labels(get_metric("nist"), 3) == ["s1", "s2", "s3"]
    assert np.isfinite(0.0)
