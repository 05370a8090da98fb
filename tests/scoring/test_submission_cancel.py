"""Cancelling: a cancelled submission is never scored or shown, and the quota is fair.

Cancelling before scoring began gives the attempt back; once a worker has started, the attempt
counts (a cancel at 99% must not be a free look at the score); only the platform's own failures
are refunded.
"""

import pytest
from django.core.exceptions import ValidationError

from core.errors import Conflict
from core.runs.context import RunContext
from core.runs.engine import run_claim, run_continue
from core.runs.errors import RunCancelled, RunRefused
from core.runs.models import Run
from scoring.leaderboards.models import Score
from scoring.leaderboards.selectors.leaderboards import leaderboard_entries
from scoring.leaderboards.services.scoring import plan_chunk, submission_finish, submission_plan
from scoring.leaderboards.services.submissions import submission_cancel
from tests.runs_kit import execute
from tests.runs_kit import upload as upload_lines
from tests.scoring.conftest import GOOD

pytestmark = pytest.mark.django_db


@pytest.fixture
def upload(django_capture_on_commit_callbacks):
    def make(board, user):
        with django_capture_on_commit_callbacks(execute=False):
            return upload_lines(board, user, GOOD, method="m")

    return make


def _scored_to_99_percent(submission):
    """A worker claimed the run and computed every chunk; only the finish remains."""
    assert run_claim(submission.run_id, 1)
    context = RunContext(Run.objects.get(pk=submission.run_id))
    plan = submission_plan(context)
    chunks = {metric: plan_chunk(plan, metric, *plan.bounds[0]) for metric in plan.metrics}
    return lambda: submission_finish(context, plan, chunks)


def test_a_cancel_at_99_percent_is_never_scored_shown_or_refunded(make_leaderboard, upload, other):
    board = make_leaderboard(total_quota=1)
    submission = upload(board, other)
    finish = _scored_to_99_percent(submission)
    assert submission_cancel(submission=submission, user=other)
    with pytest.raises(RunCancelled):  # the late finish writes nothing
        finish()
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
    assert execute(submission.run_id).state == "cancelled"  # the queued message: nothing to do
    assert not Score.objects.filter(submission=submission).exists()
    upload(board, other)  # the quota allows another


def test_a_finished_submission_cannot_be_cancelled(make_leaderboard, upload, other, client_for):
    board = make_leaderboard()
    submission = upload(board, other)
    execute(submission.run_id)
    with pytest.raises(Conflict, match="It has succeeded: only a queued or running"):
        submission_cancel(submission=submission, user=other)
    # The API said 200 with the status unchanged, as if it had been done.
    url = f"/api/v1/submissions/{submission.pk}/"
    answer = client_for(other).patch(url, {"cancel": True}, format="json")
    assert answer.status_code == 409 and "withdraw it" in answer.json()["detail"]
    submission.refresh_from_db()
    assert submission.status == "finished" and submission.scores.exists()


def test_cancelling_again_is_harmless(make_leaderboard, upload, other, client_for):
    submission = upload(make_leaderboard(), other)
    url = f"/api/v1/submissions/{submission.pk}/"
    for _ in range(2):  # a retried request
        answer = client_for(other).patch(url, {"cancel": True}, format="json")
        assert (answer.status_code, answer.json()["status"]) == (200, "cancelled")


@pytest.mark.parametrize("platform_fault, charged", [(True, False), (False, True)])
def test_only_the_platforms_failures_are_refunded(
    make_leaderboard, upload, other, platform_fault, charged
):
    submission = upload(make_leaderboard(), other)
    assert run_claim(submission.run_id, 1)  # a worker started it: charged

    def fail(_):
        raise RunRefused("a refused file") if not platform_fault else OSError("disk")

    for attempt in (1, 2, 3):  # a platform fault is retried up to the kind's limit
        run_continue(run_id=submission.run_id, attempt=attempt, step=fail, ends_run=True)
        if platform_fault and attempt < 3:
            assert run_claim(submission.run_id, attempt + 1)
    submission.refresh_from_db()
    assert (submission.status, submission.charged) == ("failed", charged)


@pytest.mark.django_db(transaction=True)
def test_a_cancel_racing_the_finish_leaves_one_consistent_outcome(
    make_leaderboard, upload, other, monkeypatch
):
    # The final transaction is slow: a cancel arriving meanwhile waits for the run's row lock
    # and then finds the run finished; no cancelled submission keeps scores.
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (SQLite serialises whole transactions)")
    import threading

    from core.runs import engine

    submission = upload(make_leaderboard(), other)
    finish = _scored_to_99_percent(submission)
    in_finish, real_end_hook = threading.Event(), engine._call_end_hook

    def slow_end_hook(run):  # inside the final transaction, under the run's row lock
        in_finish.set()
        threading.Event().wait(0.5)
        return real_end_hook(run)

    monkeypatch.setattr(engine, "_call_end_hook", slow_end_hook)
    outcome = {}

    def cancel():
        in_finish.wait(10)
        try:
            outcome["cancelled"] = submission_cancel(submission=submission, user=other)
        except Conflict:
            outcome["cancelled"] = False
        connection.close()

    thread = threading.Thread(target=cancel)
    thread.start()
    finish()
    outcome["finished"] = Run.objects.get(pk=submission.run_id).state == "succeeded"
    thread.join(20)
    submission.refresh_from_db()
    assert outcome == {"finished": True, "cancelled": False}
    assert submission.status == "finished" and submission.scores.exists()
