"""Comparing two submissions: p-values per metric, item by item only where references show."""

import numpy as np
import pytest

from scoring.leaderboards.models import Team
from scoring.leaderboards.selectors.compare import compare_submissions, stat_labels
from scoring.leaderboards.selectors.leaderboards import leaderboard_metric
from scoring.leaderboards.selectors.stored import load_matrix
from scoring.metrics import paired_approximate_randomization, paired_bootstrap
from tests.scoring.conftest import GOOD, HIDDEN, NONSENSE, PERFECT

pytestmark = pytest.mark.django_db


@pytest.fixture
def board(make_leaderboard, owner, other, scored):
    board = make_leaderboard(companion_metrics=["bleu"])
    scored(board, owner, NONSENSE, method="weak baseline", is_baseline=True)
    scored(board, owner, GOOD, method="good baseline", is_baseline=True)
    scored(board, other, PERFECT, method="oracle")
    return board


def sub(board, method):
    return board.submissions.get(method=method)


def test_p_values_equal_the_metric_library_on_the_stored_statistics(board):
    a, b = sub(board, "oracle"), sub(board, "weak baseline")
    results = {m.metric: m for m in compare_submissions(leaderboard=board, a=a, b=b)}
    assert set(results) == {"dbleu", "bleu"}
    metric = leaderboard_metric(board, "dbleu")
    stats_a = load_matrix(a.scores.get(metric="dbleu").stats_file)
    stats_b = load_matrix(b.scores.get(metric="dbleu").stats_file)
    dbleu = results["dbleu"]
    assert dbleu.p_bootstrap == paired_bootstrap(metric, stats_b, stats_a).p_value
    expected_ar = paired_approximate_randomization(metric, stats_b, stats_a).p_value
    assert dbleu.p_approximate_randomization == expected_ar
    assert dbleu.score_a == pytest.approx(100.0) and dbleu.difference > 0


def test_the_default_comparison_is_the_best_entry_against_the_best_baseline(board, client_for):
    response = client_for(None).get("/leaderboards/board/compare/")
    assert response.status_code == 200
    assert response.context["a"].method == "oracle"
    assert response.context["b"].method == "good baseline"
    named = client_for(None).get(f"/leaderboards/board/compare/?a={sub(board, 'oracle').pk}")
    assert named.context["b"].method == "good baseline"


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
    board = make_leaderboard(release=make_release(items=items))
    scored(board, owner, [f"reference number {k}" for k in range(25)], is_baseline=True)
    scored(board, other, ["nothing"] * 25)
    second = client_for(None).get("/leaderboards/board/compare/?page=2")
    assert [s.item.external_id for s in second.context["sides"]] == [f"i{k}" for k in range(20, 25)]


def test_hidden_references_stay_hidden_in_comparisons(
    make_leaderboard, owner, other, rater, scored, client_for
):
    board = make_leaderboard(split="test", slug="hidden")
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
    (dbleu, *_) = compare_submissions(leaderboard=board, a=sub(board, "oracle"), b=copy)
    assert dbleu.difference == 0 and not dbleu.significant


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
