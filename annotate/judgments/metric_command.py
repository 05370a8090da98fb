"""What every command that uploads metrics computed elsewhere shares (a judgment set's,
`import_metric_scores`; a leaderboard's, `import_leaderboard_metrics`): the file and options,
the call, every refusal by line and column, and what it prints."""

from __future__ import annotations

from argparse import ArgumentParser
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError

from annotate.judgments.columns import mapping_from_option
from annotate.judgments.models import ExternalMetric
from annotate.judgments.services.metrics import MetricScoresRejected
from core.command_args import file_to_read
from core.refusals import refusal_as_command_error

LISTED = 20  # problems a refusal prints; the rest counted


def metric_file_arguments(parser: ArgumentParser) -> None:
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


def metric_file_import(
    upload: Callable[..., list[ExternalMetric]], opts: dict, **holder: Any
) -> list[ExternalMetric]:
    """Read the file the options name and call `upload(**holder, …)`; a refusal ends the
    command listing its problems by line and column."""
    checked = file_to_read(Path(opts["file"]), option="file")
    try:
        data = checked.read_bytes()
    except OSError as exc:
        raise CommandError(f"Cannot read {opts['file']}: {exc.strerror or exc}.") from None
    with refusal_as_command_error():
        try:
            return upload(
                **holder,
                name=checked.name[-100:],
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


def metric_import_lines(created: list[ExternalMetric]) -> list[str]:
    """What the command prints: each metric's count, then the upload's warnings."""
    lines = [f"{metric}: {metric.report['imported']} responses" for metric in created]
    for problem in created[0].report["problems"] if created else []:
        lines.append(f"warning: {problem['file']}, line {problem['line']}: {problem['message']}")
    return lines
