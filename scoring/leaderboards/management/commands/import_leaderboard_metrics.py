"""Add per-response scores of metrics computed elsewhere (an LLM judge, COMET, BERTScore …) to a
leaderboard, as its owner: one row per submission × item — the item's id (an item of the
board's split), the system as the submission's id (its page's address,
/leaderboards/submissions/<id>/; "#12" reads as 12), then one column per metric (TSV/CSV/JSONL).
A study of an output campaign on the board's submissions meta-evaluates them beside the
built-in metrics. Any bad cell, unknown submission or item refuses the file, naming its line
and column; nothing is written."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotate.judgments.metric_command import (
    metric_file_arguments,
    metric_file_import,
    metric_import_lines,
)
from scoring.leaderboards.selectors.leaderboards import leaderboard_by_slug
from scoring.leaderboards.services.external_metrics import leaderboard_metrics_import


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("leaderboard", help="The leaderboard (its slug).")
        metric_file_arguments(parser)

    def handle(self, *args, **opts):
        board = leaderboard_by_slug(slug=opts["leaderboard"])
        if board is None:
            raise CommandError(f"No leaderboard {opts['leaderboard']!r}.")
        created = metric_file_import(
            leaderboard_metrics_import, opts, leaderboard=board, user=board.owner
        )
        for line in metric_import_lines(created):
            self.stdout.write(line)
