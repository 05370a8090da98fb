"""Write a dataset as canonical JSONL (the layout import_dataset reads)."""

import sys
from pathlib import Path

from annotate.datasets.commands import DatasetCommand
from annotate.datasets.selectors import dataset_export_jsonl
from core.command_args import file_to_write, file_write


class Command(DatasetCommand):
    help = __doc__

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--out", type=Path, help="Output file (default: standard output).")

    def handle(self, *args, slug, out, **options):
        dataset = self.dataset(slug)
        if out is None:
            sys.stdout.writelines(dataset_export_jsonl(dataset=dataset))
            return
        file_to_write(out, option="--out")
        file_write(out, dataset_export_jsonl(dataset=dataset), option="--out")
        self.stderr.write(f"Wrote {out}.")
