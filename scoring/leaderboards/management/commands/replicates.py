"""`manage.py replicates SLUG`: queue the bootstrap replicates of a leaderboard's finished
submissions that lack them (the interval with rater uncertainty and the rank grid), e.g. after
their run failed for good; `--all` computes every entry's again."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from scoring.leaderboards.selectors.leaderboards import leaderboard_by_slug
from scoring.leaderboards.selectors.submissions import submissions_missing_replicates
from scoring.leaderboards.services.uncertainty import replicates_start


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="The leaderboard's slug.")
        parser.add_argument(
            "--all", action="store_true", help="Every finished submission, not only those lacking."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        board = leaderboard_by_slug(slug=options["slug"])
        if board is None:
            raise CommandError(f"No leaderboard {options['slug']!r}.")
        submissions = submissions_missing_replicates(leaderboard=board, every=options["all"])
        with transaction.atomic():  # the runs are sent once this commits
            for submission in submissions:
                replicates_start(submission=submission, owner=submission.submitted_by)
        self.stdout.write(f"Queued the replicates of {len(submissions)} submission(s).")
