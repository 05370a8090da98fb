"""Import items and references from a JSONL or TSV file into a dataset, all or nothing. With
--create NAME --owner USER, the dataset is created first."""

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import transaction

from annotate.accounts.commands import user_named
from annotate.datasets.commands import DatasetCommand
from annotate.datasets.formats import FileProblems
from annotate.datasets.services.datasets import (
    dataset_create,
    dataset_import_file,
    import_format_for,
)
from core.command_args import file_to_read
from core.refusals import refusal_as_command_error


class Command(DatasetCommand):
    help = __doc__

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("file", type=Path, help="A .jsonl or .tsv file.")
        parser.add_argument("--format", choices=["jsonl", "tsv"], default="")
        parser.add_argument("--create", metavar="NAME", help="Create the dataset with this name.")
        parser.add_argument("--owner", help="Owner's username (with --create).")
        parser.add_argument("--public", action="store_true", help="Make a new dataset public.")

    def handle(self, *args, slug, file, format, create, owner, public, **options):
        file_to_read(file)
        try:
            # One transaction: a dataset made by --create goes away again if the file is bad.
            with transaction.atomic(), file.open("rb") as lines:
                dataset = self._dataset(slug, create, owner, public)
                fmt = import_format_for(file.name, format)
                summary = dataset_import_file(dataset=dataset, lines=lines, fmt=fmt)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        except FileProblems as exc:
            for problem in exc.problems:
                self.stderr.write(f"{file}: {problem}")
            count = len(exc.problems)
            what = "a problem" if count == 1 else f"{count} problems"
            raise CommandError(f"{what}; nothing was imported.") from None
        self.stdout.write(
            self.style.SUCCESS(f"Imported {summary.items} items, {summary.references} references.")
        )

    def _dataset(self, slug, create, owner, public):
        if not create:
            return self.dataset(slug, f"No dataset {slug!r}; use --create NAME --owner USER.")
        if not owner:
            raise CommandError("--create needs --owner USER: the new dataset's owner.")
        user = user_named(owner)
        visibility = "public" if public else "private"
        with refusal_as_command_error():
            return dataset_create(owner=user, name=create, slug=slug, visibility=visibility)
