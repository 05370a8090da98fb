"""Check the completion codes a campaign's participants handed in, from a file of a
participant and a code a line (a crowd platform's export cut to two columns, `-` for standard
input); print each verdict as CSV and how many are valid."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.rating.forms import code_lines_read
from annotate.rating.models import Campaign
from annotate.rating.selectors.completion import MAX_CODE_CHECKS, completion_codes_check
from core.tabular import csv_lines

# Far more than MAX_CODE_CHECKS lines of ids and codes: a larger file is not such a list.
MAX_FILE_BYTES = MAX_CODE_CHECKS * 400


def _text(path: str) -> str:
    source = sys.stdin.buffer if path == "-" else Path(path).open("rb")  # noqa: SIM115
    with source:
        data = source.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise CommandError(f"{path}: over {MAX_FILE_BYTES:,} bytes; split it.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CommandError(f"{path}, line {line}: not valid UTF-8") from None


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("campaign", type=int, help="The campaign's id.")
        parser.add_argument("path", help="The file of participants and codes, or - for stdin.")

    def handle(self, *args, campaign, path, **options):
        found = Campaign.objects.filter(pk=campaign).first()
        if found is None:
            raise CommandError(f"No campaign {campaign}.")
        try:
            entries, problems = code_lines_read(_text(path))
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        if problems.problems:
            raise CommandError("\n".join(f"{path}, {problem}" for problem in problems.reported()))
        if not 0 < len(entries) <= MAX_CODE_CHECKS:
            raise CommandError(f"{path}: give 1 to {MAX_CODE_CHECKS:,} participants and codes.")
        checks = completion_codes_check(campaign=found, entries=entries)
        rows = [(c.participant, c.code, c.verdict, c.message) for c in checks.results]
        self.stdout.write("".join(csv_lines(["participant", "code", "verdict", "message"], rows)))
        self.stderr.write(f"{checks.valid} of {checks.checked} valid")
