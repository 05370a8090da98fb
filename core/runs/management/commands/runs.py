"""List stuck or failed runs (--all: every run), and why a queued one waits; --retry ID or
--cancel ID acts on one."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.command_args import number_in_range
from core.runs.engine import run_cancel, run_retry
from core.runs.queue_selectors import waiting_reason
from core.runs.selectors import run_by_id, runs_listed

# More than a terminal can show; the admin lists every run. (A number past the database's
# integers ended in an IntegrityError.)
MOST_LISTED = 10_000


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all", action="store_true", help="List every run, not only stuck or failed ones."
        )
        parser.add_argument("--kind", default="", help="Only runs of this kind.")
        parser.add_argument(
            "--limit", type=int, default=50, help=f"Runs listed, 1 … {MOST_LISTED:,}."
        )
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--retry", type=int, metavar="ID", help="Start this failed run again.")
        group.add_argument("--cancel", type=int, metavar="ID", help="Ask this run to stop.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["retry"] is not None or options["cancel"] is not None:
            self._act(options)
            return
        limit = number_in_range(options["limit"], option="--limit", low=1, high=MOST_LISTED)
        rows = runs_listed(kind=options["kind"], needing_attention=not options["all"], most=limit)
        if not rows:
            self.stdout.write("No stuck or failed runs." if not options["all"] else "No runs.")
            return
        for run in rows:
            timings = ", ".join(f"{k} {v:.1f}s" for k, v in run.stage_timings.items())
            waiting = waiting_reason(run)
            self.stdout.write(
                f"{run.pk:>6}  {run.kind:<18} {run.state:<9}"
                f"  attempt {run.attempt}/{run.max_attempts}  {run.percent:>3}%"
                f"  owner {run.owner.username}  {run.scope}"
                + (f"\n        stages: {timings}" if timings else "")
                + (f"\n        reason: {run.reason}" if run.reason else "")
                + (f"\n        waiting: {waiting}" if waiting else "")
            )

    def _act(self, options: dict[str, Any]) -> None:
        run_id = options["retry"] if options["retry"] is not None else options["cancel"]
        run = run_by_id(run_id=run_id)
        if run is None:
            raise CommandError(f"No run {run_id}.")
        if options["retry"] is not None:
            if not run_retry(run=run):
                raise CommandError(f"Run {run_id} is {run.state}: only a failed run is retried.")
            self.stdout.write(f"Run {run_id} queued again as attempt {run.attempt}.")
        else:
            if not run_cancel(run=run):
                raise CommandError(f"Run {run_id} is {run.state}: it has ended already.")
            self.stdout.write(f"Run {run_id}: {run.status_text}.")
