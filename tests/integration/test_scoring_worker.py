"""Submissions scored by real workers: through the chord of chunks, and after a worker dies."""

import json
import subprocess
import sys
import time

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from core.runs.models import Run
from scoring.leaderboards.models import Score, Submission
from scoring.leaderboards.selectors.leaderboards import release_scoring_items
from tests.workers import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
HYPS = ["the cat sat on a mat", "what a great match", "see you then", "i love cheese pizza"]


def cli_score(release, split, hyps, tmp_path) -> dict:
    refs = tmp_path / "refs.jsonl"
    lines = []
    for _, item in release_scoring_items(release=release, split=split):
        weighted = [{"text": r.text, "weight": r.weight} for r in item.refs]
        lines.append(json.dumps({"id": item.id, "refs": weighted}) + "\n")
    refs.write_text("".join(lines))
    hyp_file = tmp_path / "hyps.txt"
    hyp_file.write_text("\n".join(hyps) + "\n")
    command = [sys.executable, "-m", "scoring.metrics", "score", "--json"]
    command += ["--refs", str(refs), "--hyps", str(hyp_file)]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def test_upload_is_scored_by_the_worker_like_the_cli(
    celery_worker_process, make_leaderboard, client_for, other, tmp_path
):
    board = make_leaderboard()
    file = SimpleUploadedFile("out.txt", ("\n".join(HYPS) + "\n").encode())
    response = client_for(other).post(
        f"/api/v1/leaderboards/{board.slug}/submissions/", {"file": file, "method": "m"}
    )
    assert response.status_code == 201
    submission_id = response.json()["id"]
    wait_for(
        lambda: Submission.objects.filter(pk=submission_id, status="finished").exists(),
        timeout=60,
        what="scoring",
    )
    stored = Score.objects.get(submission_id=submission_id, metric="dbleu")
    cli = cli_score(board.release, "dev", HYPS, tmp_path)
    assert stored.score == pytest.approx(cli["score"], abs=1e-9)
    assert stored.signature == cli["signature"]
    assert Submission.objects.get(pk=submission_id).run.attempt == 1


# Queues of this test's own: the session's shared worker must not take its work, or the killed
# worker would not be "the only worker".
OWN_QUEUES = {"CELERY_TASK_DEFAULT_QUEUE": "kill-light", "CELERY_HEAVY_QUEUE": "kill-heavy"}


def _state(run_id: int) -> str:
    """What a timed-out wait reports: the run and its attempt's steps."""
    from core.runs.models import Worker

    run = Run.objects.get(pk=run_id)
    steps = list(run.steps.values_list("attempt", "name", "finished", "heartbeat_at"))
    workers = list(Worker.objects.values_list("hostname", "queues", "beat_at", "idle_since"))
    return (
        f"{run.state} attempt {run.attempt}, {run.parts} parts sent at {run.parts_sent_at}, "
        f"{run.reason!r}, steps {steps}, workers {workers}"
    )


def test_a_worker_killed_mid_run_is_recovered_within_two_minutes_exactly_once(
    start_worker, make_release, make_leaderboard, client_for, other, settings
):
    settings.CELERY_TASK_DEFAULT_QUEUE = OWN_QUEUES["CELERY_TASK_DEFAULT_QUEUE"]
    settings.CELERY_HEAVY_QUEUE = OWN_QUEUES["CELERY_HEAVY_QUEUE"]
    queues = {**OWN_QUEUES, "QUEUES": ",".join(OWN_QUEUES.values()), "SCORING_CHUNK_ITEMS": "3"}
    # The default lease (600 s): a part the killed worker was running stops beating and is
    # found after the grace; one it had received and not yet started is found from the new
    # worker's heartbeats once it has held nothing for two beats (core/runs/steps.py).
    first = start_worker(**queues)
    items = [("dev", f"i{n}", [(f"reference number {n} is here", 1.0)]) for n in range(30)]
    board = make_leaderboard(release=make_release(slug="many", items=items), slug="many")
    hyps = "".join(f"reference {n} maybe\n" for n in range(30)).encode()
    response = client_for(other).post(
        f"/api/v1/leaderboards/{board.slug}/submissions/",
        {"file": SimpleUploadedFile("out.txt", hyps), "method": "m"},
    )
    run_id = response.json()["run"]
    wait_for(
        lambda: Run.objects.filter(pk=run_id, done__gt=0).exists(),
        timeout=60,
        what="the first chunks",
    )
    first.kill()  # SIGKILL, the only worker: what it held is lost
    run = Run.objects.get(pk=run_id)
    assert (run.state, run.attempt) == ("running", 1)
    # A new worker with the periodic sweep (beat), nothing faked: the heartbeat goes stale,
    # the sweep retries the run with attempt 2, and it finishes.
    started = time.monotonic()
    second = start_worker(**queues, WITH_BEAT="1")
    try:
        try:
            wait_for(
                lambda: Run.objects.filter(pk=run_id, state="succeeded").exists(),
                timeout=150,
                what="the recovered run",
            )
        except AssertionError as exc:
            raise AssertionError(f"{exc} Now: {_state(run_id)}") from exc
    finally:
        second.stop()  # its beat must not outlive the test (one beat per schedule)
    elapsed = time.monotonic() - started
    assert elapsed < 120, f"recovered after {elapsed:.0f} s"
    run = Run.objects.get(pk=run_id)
    submission = Submission.objects.get(run_id=run_id)
    assert (submission.status, submission.charged) == ("finished", True)
    # Either the lost part's attempt was retried (attempt 2), or the killed worker held no part
    # and the new one finished the parts still queued (attempt 1): both are exactly once.
    assert run.attempt == 1 or "its worker stopped responding" in run.reason
    assert sorted(submission.scores.values_list("metric", flat=True)) == ["bleu", "dbleu", "sbleu"]
    # Exactly once, and nothing of the dead attempt is left in storage.
    assert submission.scores.count() == 3
    assert not default_storage.exists(f"runs/{run_id}-1") or not any(
        default_storage.listdir(f"runs/{run_id}-1")
    )
