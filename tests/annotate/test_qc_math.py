"""The quality-control checks on hand-made answers: each check alone, and the verdict."""

import pytest

from annotate.rating.qc_math import (
    Answer,
    Thresholds,
    assess,
    bad_reference_test,
    straightline_share,
)

LIMITS = Thresholds(
    min_seconds=2.0, max_straightline=0.8, alpha=0.1, min_controls=3, max_repeat_difference=1.0
)


def answers(normal, bad=(), repeats=(), seconds=5.0):
    """Normal scores on references 1..n, then bad references and repeats of references 1, 2, …"""
    rows = [Answer("normal", i + 1, s, seconds) for i, s in enumerate(normal)]
    rows += [Answer("bad_reference", i + 1, s, seconds) for i, s in enumerate(bad)]
    rows += [Answer("repeat", i + 1, s, seconds) for i, s in enumerate(repeats)]
    return rows


@pytest.mark.parametrize(
    "scores, share",
    [([], 0.0), ([3], 0.0), ([3, 3], 1.0), ([1, 2, 3, 4], 0.0), ([4, 4, 4, 1, 1], 0.75)],
)
def test_straightline_share_counts_repeats_of_the_previous_score(scores, share):
    assert straightline_share(scores) == pytest.approx(share)


def test_bad_references_scored_lower_are_significant():
    test = bad_reference_test([1, 1, 2], [5, 4, 5], alpha=0.1)
    assert test["significant"] and test["p"] < 0.05 and test["u"] == 0.0


def test_bad_references_scored_like_their_originals_are_not():
    test = bad_reference_test([4, 4, 4], [4, 4, 4], alpha=0.1)
    assert test["p"] == 1.0 and not test["significant"]


def test_no_bad_references_means_no_test():
    assert bad_reference_test([], [], alpha=0.1) == {
        "n": 0,
        "u": None,
        "p": None,
        "significant": False,
    }


def test_a_careful_rater_passes():
    verdict = assess(answers([5, 4, 5, 4, 3, 4], bad=[1, 1, 2], repeats=[5]), LIMITS)
    assert (verdict.status, verdict.reasons) == ("passed", [])
    assert verdict.details["bad_references"]["z_gap"] > 1
    assert verdict.details["scores"]["n"] == 6


def test_the_verdict_waits_for_enough_bad_references():
    verdict = assess(answers([5, 4, 5, 4], bad=[1, 1]), LIMITS)
    assert verdict.status == "pending"
    assert verdict.reasons == ["Waiting for bad references: 2 of 3 rated."]


def test_problems_show_while_pending_but_decide_nothing():
    verdict = assess(answers([5, 4, 5, 4], bad=[1], seconds=0.5), LIMITS)
    assert verdict.status == "pending"
    assert any("too fast" in reason for reason in verdict.reasons)


def test_bad_references_not_told_apart_fail():
    verdict = assess(answers([4, 4, 5, 3, 4, 4], bad=[4, 5, 3]), LIMITS)
    assert verdict.status == "failed"
    assert verdict.reasons[0].startswith("Did not score the 3 bad references lower")


def test_inconsistent_repeats_fail():
    verdict = assess(answers([5, 4, 5, 4, 3, 4], bad=[1, 1, 2], repeats=[1, 1]), LIMITS)
    assert verdict.status == "failed"
    assert verdict.details["repeats"] == {"n": 2, "mean_difference": 3.5}
    assert "Repeated items differed by 3.50 points" in verdict.reasons[0]


def test_too_fast_fails():
    verdict = assess(answers([5, 4, 5, 4, 3, 4], bad=[1, 1, 2], seconds=1.0), LIMITS)
    assert verdict.status == "failed"
    assert verdict.reasons == [
        "Answered too fast: 1.0 s per rating in the median (at least 2 s needed)."
    ]


def test_straight_lining_is_judged_on_ten_ratings_or_more():
    strict = Thresholds(2.0, 0.5, 0.1, 3, 1.0)
    nine = assess(answers([4, 4, 4, 4, 4, 4], bad=[1, 1, 1]), strict)
    assert nine.status == "passed" and nine.details["straightline_share"] is None
    ten = assess(answers([4, 4, 4, 4, 4, 4], bad=[1, 1, 1], repeats=[4]), strict)
    assert ten.status == "failed"
    assert ten.reasons == [
        "Straight-lining: 78% of ratings repeat the previous score (at most 50% allowed)."
    ]


def test_without_required_controls_the_other_checks_decide():
    no_controls = Thresholds(2.0, 0.8, 0.1, 0, 1.0)
    assert assess(answers([5, 4, 3]), no_controls).status == "passed"
    assert assess(answers([5, 4, 3], seconds=0.1), no_controls).status == "failed"


def test_without_controls_a_verdict_waits_for_enough_answers():
    """One fast answer is no evidence: a careless rater is judged after `min_answers`."""
    waiting = Thresholds(2.0, 0.8, 0.1, 0, 1.0, min_answers=6)
    early = assess(answers([5, 4, 3], seconds=0.1), waiting)
    assert early.status == "pending" and early.reasons[0] == "Waiting for answers: 3 of 6 given."
    assert "Answered too fast" in early.reasons[1]  # shown, not yet decided on
    assert assess(answers([5, 4, 3, 2, 1, 2], seconds=0.1), waiting).status == "failed"
