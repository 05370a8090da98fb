"""Add per-response scores of metrics computed elsewhere (an LLM judge, COMET, BERTScore …) to
a set of imported judgments: one row per system × item, the item's id, the system, then one
column per metric (TSV/CSV/JSONL). A study of the set meta-evaluates them beside the built-in
metrics. A cell that is not a finite number refuses the file, naming its line and column."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.judgments.columns import mapping_from_option
from annotate.judgments.selectors import judgment_set_by_id
from annotate.judgments.services.metrics import MetricScoresRejected, external_metrics_import
from core.command_args import file_to_read
from core.refusals import refusal_as_command_error

LISTED = 20  # problems a refusal prints; the rest counted


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("judgments", type=int, help="The set of judgments (id).")
        parser.add_argument("file", help="The scores (TSV, CSV or JSONL).")
        parser.add_argument(
            "--metric", action="append", default=[], help="A metric column (default: every "
            "column of numbers not otherwise roled)."
        )  # fmt: skip
        parser.add_argument(
            "--lower-is-better", action="append", default=[], help="A metric where lower is "
            "better."
        )  # fmt: skip
        parser.add_argument("--description", default="", help="How the scores were computed.")
        parser.add_argument("--column", action="append", default=[], help="ROLE=COLUMN")

    def handle(self, *args, **opts):
        judgment_set = judgment_set_by_id(pk=opts["judgments"])
        if judgment_set is None:
            raise CommandError(f"No set of judgments {opts['judgments']}.")
        checked = file_to_read(Path(opts["file"]), option="file")
        try:
            data = checked.read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {opts['file']}: {exc.strerror or exc}.") from None
        with refusal_as_command_error():
            created = self._import(judgment_set, checked.name[-100:], data, opts)
        for metric in created:
            self.stdout.write(f"{metric}: {metric.report['imported']} responses")
        for problem in created[0].report["problems"] if created else []:
            where = f"{problem['file']}, line {problem['line']}"
            self.stdout.write(f"warning: {where}: {problem['message']}")

    def _import(self, judgment_set, name: str, data: bytes, opts: dict):
        try:
            return external_metrics_import(
                judgment_set=judgment_set,
                user=judgment_set.dataset.owner,
                name=name,
                data=data,
                metrics=opts["metric"] or None,
                lower_is_better=opts["lower_is_better"],
                description=opts["description"],
                columns=mapping_from_option(opts["column"]) or None,
            )
        except MetricScoresRejected as exc:  # every problem by line and column, not a summary
            shown = [str(p) for p in exc.problems[:LISTED]]
            if len(exc.problems) > LISTED:
                shown.append(f"… {len(exc.problems) - LISTED} more")
            raise CommandError("\n".join(["Nothing imported:", *shown])) from None
