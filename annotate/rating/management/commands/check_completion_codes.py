"""Check the completion codes a campaign's participants handed in, from a file of a
participant and a code a line (a crowd platform's export cut to two columns, `-` for standard
input); print each verdict as CSV and how many are valid."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.rating.forms import code_lines_read
from annotate.rating.selectors.campaigns import campaign_by_id
from annotate.rating.selectors.completion import completion_codes_check
from core.command_args import file_to_read
from core.lines import LineProblems, read_lines
from core.tabular import csv_lines


def _entries(path: str) -> list[tuple[str, str]]:
    """The file's participants and codes, through the one reader of uploads' lines (a BOM
    dropped, a line that is not UTF-8 named); every problem is the command's error."""
    problems = LineProblems(file=path)
    try:
        with sys.stdin.buffer if path == "-" else file_to_read(Path(path)).open("rb") as raw:
            entries = code_lines_read(read_lines(raw, problems), problems)
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror}") from None
    if problems.problems:
        raise CommandError("\n".join(str(problem) for problem in problems.reported()))
    return entries


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("campaign", type=int, help="The campaign's id.")
        parser.add_argument("path", help="The file of participants and codes, or - for stdin.")

    def handle(self, *args, campaign, path, **options):
        found = campaign_by_id(campaign_id=campaign)
        if found is None:
            raise CommandError(f"No campaign {campaign}.")
        checks = completion_codes_check(campaign=found, entries=_entries(path))
        rows = [(c.participant, c.code, c.verdict, c.message) for c in checks.results]
        self.stdout.write("".join(csv_lines(["participant", "code", "verdict", "message"], rows)))
        self.stderr.write(f"{checks.valid} of {checks.checked} valid")
