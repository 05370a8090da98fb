"""Add per-response scores of metrics computed elsewhere (an LLM judge, COMET, BERTScore …) to
a set of imported judgments: one row per system × item, the item's id, the system, then one
column per metric (TSV/CSV/JSONL). A study of the set meta-evaluates them beside the built-in
metrics. A cell that is not a finite number refuses the file, naming its line and column.
(A leaderboard's owner uploads to the board with `import_leaderboard_metrics`.)"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotate.judgments.metric_command import (
    metric_file_arguments,
    metric_file_import,
    metric_import_lines,
)
from annotate.judgments.selectors import judgment_set_by_id
from annotate.judgments.services.metrics import external_metrics_import


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("judgments", type=int, help="The set of judgments (id).")
        metric_file_arguments(parser)

    def handle(self, *args, **opts):
        judgment_set = judgment_set_by_id(pk=opts["judgments"])
        if judgment_set is None:
            raise CommandError(f"No set of judgments {opts['judgments']}.")
        created = metric_file_import(
            external_metrics_import,
            opts,
            judgment_set=judgment_set,
            user=judgment_set.dataset.owner,
        )
        for line in metric_import_lines(created):
            self.stdout.write(line)
