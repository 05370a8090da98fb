import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.datasets.models import Dataset
from annotate.datasets.selectors import dataset_export_jsonl


class Command(BaseCommand):
    help = "Write a dataset as canonical JSONL (the layout import_dataset reads)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--out", type=Path, help="Output file (default: standard output).")

    def handle(self, *args, slug, out, **options):
        try:
            dataset = Dataset.objects.get(slug=slug)
        except Dataset.DoesNotExist:
            raise CommandError(f"No dataset {slug!r}.") from None
        if out is None:
            sys.stdout.writelines(dataset_export_jsonl(dataset=dataset))
            return
        with out.open("w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(dataset_export_jsonl(dataset=dataset))
        self.stderr.write(f"Wrote {out}.")
