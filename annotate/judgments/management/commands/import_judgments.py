"""Import human judgments (and their systems' outputs, contexts and references) into a dataset."""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from annotate.datasets.models import Dataset
from annotate.judgments.services.importing import bundle_parse, judgments_import


def _file(path: str | None) -> tuple[str, bytes] | None:
    return (Path(path).name, Path(path).read_bytes()) if path else None


class Command(BaseCommand):
    help = "Import per-judge judgments (TSV/CSV/JSONL); problems are listed by file and line."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("judgments")
        parser.add_argument("--systems", help="system responses: system, id, response")
        parser.add_argument("--contexts", help="contexts: id, depth, context")
        parser.add_argument("--references", help="references: id, ref1, ref2, …")
        parser.add_argument("--split", default="test", choices=["dev", "test"])
        parser.add_argument("--name", default="")

    def handle(self, *args, **opts):
        dataset = Dataset.objects.filter(slug=opts["slug"]).first()
        if dataset is None:
            raise CommandError(f"No dataset {opts['slug']!r}.")
        bundle = bundle_parse(
            judgments=_file(opts["judgments"]),
            systems=_file(opts["systems"]),
            contexts=_file(opts["contexts"]),
            references=_file(opts["references"]),
        )
        try:
            imported = judgments_import(
                dataset=dataset,
                owner=dataset.owner,
                split=opts["split"],
                name=opts["name"] or Path(opts["judgments"]).name,
                bundle=bundle,
            )
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        report = imported.report
        for p in report["problems"]:
            where = f"{p['file']}, line {p['line']}" if p["line"] else p["file"]
            self.stderr.write(f"{p['level']}: {where}: {p['message']}")
        self.stdout.write(
            f"Imported {report['judgments']} judgments ({report['rows']} rows) of "
            f"{len(report['systems'])} systems; {report['items_created']} items created; "
            f"{report['errors']} rows skipped, {report['warnings']} warnings."
        )
