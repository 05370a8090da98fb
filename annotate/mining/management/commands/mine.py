"""Mine candidate references for a dataset split from an indexed corpus, in this process (the web
page and the API queue the same run for a worker instead)."""

from django.core.management.base import CommandError

from annotate.datasets.commands import DatasetCommand
from annotate.mining.candidates import DEFAULT_K
from annotate.mining.selectors import corpus_by_id
from annotate.mining.services.mining import mining_start
from core.refusals import refusal_as_command_error
from core.runs.engine import run_execute


class Command(DatasetCommand):
    help = __doc__

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--corpus", type=int, required=True, help="Corpus id.")
        parser.add_argument("--split", default="dev", choices=["dev", "test"])
        parser.add_argument("--k", type=int, default=DEFAULT_K, help="Candidates per item.")

    def handle(self, *args, slug, corpus, split, k, **options):
        dataset = self.dataset(slug, "No such dataset or corpus.")
        found = corpus_by_id(corpus_id=corpus)
        if found is None:
            raise CommandError("No such dataset or corpus.")
        with refusal_as_command_error():
            run = mining_start(
                user=dataset.owner, dataset=dataset, corpus=found, split=split, k=k, enqueue=False
            )
        run_execute(run_id=run.pk, attempt=run.attempt)
        run.refresh_from_db()
        outcome = " ".join(
            str(part) for part in (run.message, run.result or "", run.reason) if part
        )
        self.stdout.write(f"Run {run.pk}: {run.state}. {outcome}")
