"""A chunked submission's chord, run in this process: one failed chunk fails the attempt with that
chunk's reason, the last attempt fails the run and the submission, and nothing is scored."""

from __future__ import annotations

import pytest
from celery import current_app, signature

import core.runs.tasks
import scoring.leaderboards.tasks  # noqa: F401  (registers the chord's tasks by name)
from core.runs import canvas
from scoring.leaderboards.models import Score
from scoring.leaderboards.services import scoring as scoring_service
from tests.runs_kit import execute, upload
from tests.scoring.conftest import PERFECT

pytestmark = pytest.mark.django_db


class RecordedChords:
    """Stands in for celery.chord in run_chord: keeps each canvas, to be run after the attempt's
    task returned, as a worker would run it."""

    def __init__(self):
        self.canvases = []

    def __call__(self, parts):
        return lambda body: self.canvases.append((parts, body))

    def run_next(self):
        """The parts in order; the body if all succeeded, else the body's error callbacks."""
        parts, body = self.canvases.pop(0)
        try:
            for part in parts:
                current_app.tasks[part.task](*part.args, **part.kwargs)
        except Exception:
            for errback in body.options.get("link_error", []):
                errback = signature(errback)
                current_app.tasks[errback.task](*errback.args)
            return body.options["link_error"]
        current_app.tasks[body.task](*body.args)
        return []


@pytest.fixture
def chords(monkeypatch, settings):
    settings.SCORING_CHUNK_ITEMS = 2  # four lines: two chunks a metric
    recorded = RecordedChords()
    monkeypatch.setattr(canvas, "chord", recorded)
    return recorded


@pytest.fixture
def second_chunk_breaks(monkeypatch):
    real = scoring_service.submission_chunk

    def chunk(submission, references, start, stop):
        if start == 2:
            raise OSError("the disk under chunk 2 is gone")
        return real(submission, references, start, stop)

    monkeypatch.setattr(scoring_service, "submission_chunk", chunk)


def submitted(board, user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # no broker: the test runs it
        return upload(board, user, PERFECT, method="chunked")


def test_the_chord_of_a_chunked_submission_scores_it(
    chords, make_leaderboard, owner, django_capture_on_commit_callbacks
):
    submission = submitted(make_leaderboard(), owner, django_capture_on_commit_callbacks)
    assert execute(submission.run_id).state == "running"  # deferred to its chord
    parts, _ = chords.canvases[0]
    assert len(parts) == 2 * len(submission.leaderboard.metrics)
    assert chords.run_next() == []
    submission.refresh_from_db()
    assert (submission.status, submission.run.state) == ("finished", "succeeded")
    assert Score.objects.filter(submission=submission).count() == len(
        submission.leaderboard.metrics
    )


def test_one_failed_chunk_fails_the_run_with_its_reason(
    chords, second_chunk_breaks, make_leaderboard, owner, django_capture_on_commit_callbacks
):
    submission = submitted(make_leaderboard(), owner, django_capture_on_commit_callbacks)
    run = submission.run
    for attempt in range(1, run.max_attempts + 1):
        with django_capture_on_commit_callbacks(execute=False):  # the retry is not sent
            assert execute(run).attempt == attempt
            errbacks = chords.run_next()
        # The chord's error callback is the run engine's, for this very attempt.
        assert [(e["task"], tuple(e["args"])) for e in errbacks] == [
            (core.runs.tasks.CHORD_FAILED_TASK, (run.pk, attempt))
        ]
        run.refresh_from_db()
        if attempt < run.max_attempts:
            assert (run.state, run.attempt) == ("queued", attempt + 1)
            assert (
                run.reason == f"Attempt {attempt} failed: OSError: the disk under chunk 2 is gone"
            )
    assert run.state == "failed"
    assert run.reason == "Failed after 3 attempts. Last: OSError: the disk under chunk 2 is gone"
    submission.refresh_from_db()
    assert submission.status == "failed" and "the disk under chunk 2 is gone" in submission.error
    assert not submission.charged
    assert not Score.objects.filter(submission=submission).exists()


def test_a_lost_part_fails_the_attempt_through_the_error_callback(
    chords, make_leaderboard, owner, django_capture_on_commit_callbacks
):
    # A part that never reports (its worker died, a time limit) leaves only the error callback.
    submission = submitted(make_leaderboard(), owner, django_capture_on_commit_callbacks)
    execute(submission.run_id)
    _, body = chords.canvases.pop(0)
    with django_capture_on_commit_callbacks(execute=False):
        for errback in body.options["link_error"]:
            core.runs.tasks.chord_failed_task(*signature(errback).args)
    run = submission.run
    run.refresh_from_db()
    assert (run.state, run.attempt) == ("queued", 2)
    assert run.reason == "Attempt 1 failed: a part of its work failed"
    assert not Score.objects.filter(submission=submission).exists()
