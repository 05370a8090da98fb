"""Submissions scored by real workers: through the chord of chunks, and after a worker dies."""

import json
import subprocess
import sys
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from scoring.models import Score, Submission
from scoring.selectors.leaderboards import release_scoring_items
from scoring.tasks import requeue_stuck_submissions_task
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
    wait_for(lambda: Submission.objects.filter(pk=submission_id, status="finished").exists(),
             timeout=60, what="scoring")  # fmt: skip
    stored = Score.objects.get(submission_id=submission_id, metric="dbleu")
    cli = cli_score(board.release, "dev", HYPS, tmp_path)
    assert stored.score == pytest.approx(cli["score"], abs=1e-9)
    assert stored.signature == cli["signature"]
    assert Submission.objects.get(pk=submission_id).attempts == 1


def test_a_worker_killed_mid_run_does_not_leave_the_submission_stuck(
    celery_worker_process, start_worker, make_release, make_leaderboard, client_for, other
):
    items = [("dev", f"i{n}", [(f"reference number {n} is here", 1.0)]) for n in range(30)]
    board = make_leaderboard(release=make_release(slug="many", items=items), slug="many")
    hyps = "".join(f"reference {n} maybe\n" for n in range(30)).encode()
    response = client_for(other).post(
        f"/api/v1/leaderboards/{board.slug}/submissions/",
        {"file": SimpleUploadedFile("out.txt", hyps), "method": "m"},
    )
    submission_id = response.json()["id"]
    wait_for(lambda: Submission.objects.filter(pk=submission_id, progress__gt=0).exists(),
             timeout=60, what="the first chunks")  # fmt: skip
    celery_worker_process.kill()  # the only worker: what it held is lost
    assert Submission.objects.get(pk=submission_id).status == "running"
    # Ten minutes of silence later the periodic sweep finds it and queues it again.
    Submission.objects.filter(pk=submission_id).update(
        heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    assert requeue_stuck_submissions_task() == 1
    start_worker(SCORING_CHUNK_ITEMS="3")
    wait_for(lambda: Submission.objects.filter(pk=submission_id, status="finished").exists(),
             timeout=120, what="the requeued run")  # fmt: skip
    submission = Submission.objects.get(pk=submission_id)
    assert submission.attempts == 2
    assert sorted(submission.scores.values_list("metric", flat=True)) == ["bleu", "dbleu", "sbleu"]
