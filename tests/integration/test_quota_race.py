"""Eight uploads of one team at once against the real database: the quota still holds."""

import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from core.runs.models import Run
from scoring.leaderboards.models import Submission
from tests.runs_kit import upload as upload_lines
from tests.workers import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
GOOD = b"the cat sat on a mat\nwhat a great match\nsee you then\ni love cheese pizza\n"


def test_concurrent_uploads_cannot_exceed_the_daily_quota(
    make_leaderboard, other, celery_worker_process
):
    board = make_leaderboard(daily_quota=3, total_quota=10)
    from scoring.leaderboards.services.submissions import team_for

    team_for(user=other)  # the team exists before the race, as after a first upload
    accepted, refused, errors = [], [], []
    start = threading.Barrier(8)

    def upload():
        try:
            start.wait()
            upload_lines(board, other, GOOD, method="racer")
            accepted.append(1)
        except ValidationError:
            refused.append(1)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=upload) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert (len(accepted), len(refused)) == (3, 5)
    # Charged when a worker starts them; until then they count against the quota all the same.
    assert Submission.objects.count() == 3
    # The session's worker scores the accepted ones (and their replicates follow): let it
    # finish, or it would still be writing while the test's tables are emptied (a deadlock).
    wait_for(
        lambda: not Run.objects.exclude(state__in=Run.ENDED).exists(),
        timeout=120,
        what="the accepted uploads' runs",
    )
    assert set(Submission.objects.values_list("status", flat=True)) == {"finished"}
