"""Cancelling: a cancelled submission is never scored or shown, and the quota is fair.

Cancelling before scoring began gives the attempt back; once a worker has started, the attempt
counts (a cancel at 99% must not be a free look at the score); only the platform's own failures
are refunded.
"""

import pytest
from django.core.exceptions import ValidationError

from scoring.models import Score, Submission
from scoring.selectors.leaderboards import leaderboard_entries
from scoring.services.scoring import (
    score_chunk,
    submission_claim,
    submission_fail,
    submission_finish,
    submission_plan,
)
from scoring.services.submissions import submission_cancel, submission_create
from scoring.tasks import score_submission_task
from tests.scoring.conftest import GOOD

pytestmark = pytest.mark.django_db


@pytest.fixture
def upload(django_capture_on_commit_callbacks):
    def make(board, user):
        data = ("\n".join(GOOD) + "\n").encode()
        with django_capture_on_commit_callbacks(execute=False):
            return submission_create(
                leaderboard=board, user=user, lines=data.splitlines(keepends=True),
                size=len(data), filename="out.txt", method="m",
            )  # fmt: skip

    return make


def _scored_to_99_percent(submission):
    """A worker claimed the run and computed every chunk; only the finish remains."""
    assert submission_claim(submission_id=submission.pk)
    plan = submission_plan(submission_id=submission.pk)
    for metric in plan.metrics:
        for start, stop in plan.bounds:
            score_chunk(plan=plan, metric_name=metric, start=start, stop=stop)
    return plan


def test_a_cancel_at_99_percent_is_never_scored_shown_or_refunded(make_leaderboard, upload, other):
    board = make_leaderboard(total_quota=1)
    submission = upload(board, other)
    plan = _scored_to_99_percent(submission)
    assert submission_cancel(submission=submission, user=other)
    assert submission_finish(plan=plan) is False  # the late finish writes nothing
    submission.refresh_from_db()
    assert (submission.status, submission.charged) == ("cancelled", True)
    assert not Score.objects.filter(submission=submission).exists()
    assert not leaderboard_entries(leaderboard=board, user=other).filter(pk=submission.pk)
    with pytest.raises(ValidationError, match="used all 1 submissions"):
        upload(board, other)


def test_a_cancel_before_scoring_began_gives_the_attempt_back(make_leaderboard, upload, other):
    board = make_leaderboard(total_quota=1)
    submission = upload(board, other)
    assert submission_cancel(submission=submission, user=other)
    submission.refresh_from_db()
    assert (submission.status, submission.charged) == ("cancelled", False)
    score_submission_task(submission.pk)  # the queued message arrives: nothing to claim
    assert not Score.objects.filter(submission=submission).exists()
    upload(board, other)  # the quota allows another


def test_a_finished_submission_cannot_be_cancelled(make_leaderboard, upload, other):
    board = make_leaderboard()
    submission = upload(board, other)
    score_submission_task(submission.pk)
    assert submission_cancel(submission=submission, user=other) is False
    submission.refresh_from_db()
    assert submission.status == "finished" and submission.scores.exists()


@pytest.mark.parametrize("platform_fault, charged", [(True, False), (False, True)])
def test_only_the_platforms_failures_are_refunded(
    make_leaderboard, upload, other, platform_fault, charged
):
    submission = upload(make_leaderboard(), other)
    submission_fail(submission_id=submission.pk, message="x", platform_fault=platform_fault)
    assert Submission.objects.get(pk=submission.pk).charged is charged


@pytest.mark.django_db(transaction=True)
def test_a_cancel_racing_the_finish_leaves_one_consistent_outcome(
    make_leaderboard, upload, other, monkeypatch
):
    # The finish is slow (bootstrap intervals): a cancel arriving meanwhile waits for its row
    # lock and then finds the submission finished; no cancelled submission keeps scores.
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (SQLite serialises whole transactions)")
    import threading

    from scoring.services import scoring

    submission = upload(make_leaderboard(), other)
    plan = _scored_to_99_percent(submission)
    in_finish, real_score_metric = threading.Event(), scoring.score_metric

    def slow_score_metric(*args, **kwargs):
        in_finish.set()
        threading.Event().wait(0.5)
        return real_score_metric(*args, **kwargs)

    monkeypatch.setattr(scoring, "score_metric", slow_score_metric)
    outcome = {}

    def cancel():
        in_finish.wait(10)
        outcome["cancelled"] = submission_cancel(submission=submission, user=other)
        connection.close()

    thread = threading.Thread(target=cancel)
    thread.start()
    outcome["finished"] = submission_finish(plan=plan)
    thread.join(20)
    submission.refresh_from_db()
    assert outcome == {"finished": True, "cancelled": False}
    assert submission.status == "finished" and submission.scores.exists()
