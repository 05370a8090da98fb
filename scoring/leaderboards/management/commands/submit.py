"""Submit a system output to a leaderboard as USER (on the server; participants elsewhere use
`python -m scoring.leaderboards.client submit`). With --wait, follow the scoring and print it."""

import time
from pathlib import Path

from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management.base import BaseCommand, CommandError

from annotate.accounts.commands import user_named
from core.command_args import file_to_read, number_in_range
from scoring.leaderboards.models import Submission
from scoring.leaderboards.selectors.leaderboards import leaderboard_by_slug
from scoring.leaderboards.selectors.submissions import submission_by_id
from scoring.leaderboards.services.submissions import submission_create
from scoring.leaderboards.submission_files import UploadRejected

POLL_SECONDS = 0.5
# A shorter wait than a second sees no scoring finish (they poll at POLL_SECONDS); a day is
# longer than any scoring, which a run's own limits end before.
TIMEOUT_LEAST, TIMEOUT_MOST = 1, 86_400


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--leaderboard", required=True, help="The leaderboard's slug.")
        parser.add_argument("--file", required=True, type=Path)
        parser.add_argument("--user", required=True, help="Username of the participant.")
        parser.add_argument("--method", default="", help="Name of the method (default: file).")
        parser.add_argument("--team", default="")
        parser.add_argument("--baseline", action="store_true", help="A baseline (owner only).")
        parser.add_argument("--wait", action="store_true", help="Wait for the scores.")
        parser.add_argument(
            "--timeout", type=float, default=600.0, help="Seconds to wait (1 … 86,400)."
        )

    def handle(self, *args, **o):
        board = leaderboard_by_slug(slug=o["leaderboard"])
        if board is None:
            raise CommandError(f"--leaderboard: no leaderboard {o['leaderboard']!r}.")
        user = user_named(o["user"], option="--user")
        file_to_read(o["file"], option="--file")
        # Before the submission exists: once queued, it counts against the quota.
        number_in_range(o["timeout"], option="--timeout", low=TIMEOUT_LEAST, high=TIMEOUT_MOST)
        try:
            with o["file"].open("rb") as lines:
                submission = submission_create(
                    leaderboard=board,
                    user=user,
                    lines=lines,
                    size=o["file"].stat().st_size,
                    filename=o["file"].name,
                    method=o["method"] or o["file"].stem,
                    team_name=o["team"],
                    is_baseline=o["baseline"],
                )
        except UploadRejected as exc:
            for problem in exc.problems:
                self.stderr.write(f"{o['file']}: {problem}")
            raise CommandError(
                "The file was not accepted; nothing was queued or charged."
            ) from None
        except (ValidationError, PermissionDenied) as exc:
            raise CommandError(" ".join(getattr(exc, "messages", [str(exc)]))) from None
        self.stdout.write(f"Submission {submission.pk} queued.")
        if o["wait"]:
            self._wait(submission.pk, o["timeout"])

    def _wait(self, submission_id: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:  # read once at least, whatever the time left
            submission = submission_by_id(submission_id=submission_id)
            if submission is None:
                raise CommandError(f"Submission {submission_id} was deleted while scored.")
            if submission.status not in Submission.ACTIVE:
                break
            if time.monotonic() >= deadline:
                raise CommandError(
                    f"Submission {submission_id} still {submission.state} after {timeout:.0f} s."
                )
            time.sleep(POLL_SECONDS)
        if submission.state != "succeeded":
            raise CommandError(f"Submission {submission_id} {submission.state}: {submission.error}")
        for score in submission.scores.order_by("metric"):
            ci = (
                f" [95% CI {score.ci_low:.2f}, {score.ci_high:.2f}]"
                if score.ci_low is not None
                else ""
            )
            self.stdout.write(f"{score.signature} = {score.score:.2f}{ci}")
