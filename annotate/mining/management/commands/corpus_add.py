"""Index a corpus of (context, message, response) triples from a file on this server (JSONL or TSV,
gzip accepted), streamed: only the index goes to storage. For corpora too large to upload. Shared
with every researcher unless --private."""

from contextlib import suppress
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.accounts.commands import user_named
from annotate.mining.models import Corpus
from annotate.mining.services.corpora import (
    CorpusInvalid,
    corpus_build_index,
    corpus_create,
    corpus_delete,
    corpus_format_for,
)
from core.command_args import file_to_read
from core.refusals import refusal_as_command_error


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="A .jsonl or .tsv file, maybe .gz.")
        parser.add_argument("--name", help="Display name (default: the file name).")
        parser.add_argument("--owner", required=True, help="Owner's username.")
        parser.add_argument("--format", choices=["jsonl", "tsv"], default="")
        parser.add_argument("--language", default="en")
        parser.add_argument("--private", action="store_true", help="Only its owner may mine it.")
        parser.add_argument("--skip-bad-rows", action="store_true", help="Index the good rows.")

    def handle(self, *args, path: Path, owner: str, **options):
        file_to_read(path)
        user = user_named(owner)
        with refusal_as_command_error():
            fmt = corpus_format_for(path.name, options["format"])
            corpus = corpus_create(
                owner=user,
                name=options["name"] or path.name,
                fmt=fmt,
                source=str(path.resolve()),
                language=options["language"],
                shared=not options["private"],
                skip_bad_rows=options["skip_bad_rows"],
            )
        self._index(corpus, path)

    def _index(self, corpus: Corpus, path: Path) -> None:
        def progress(rows: int) -> None:
            if rows % 100_000 == 0:
                self.stdout.write(f"{rows:,} triples read")

        # A corpus that is not indexed here leaves no row: this command prints every problem
        # itself, so a "failed" corpus in every researcher's list would only be litter.
        try:
            with path.open("rb") as raw:
                corpus = corpus_build_index(corpus=corpus, raw=raw, progress=progress)
        except CorpusInvalid as exc:
            corpus.refresh_from_db()
            corpus_delete(corpus=corpus)
            for problem in corpus.problems:
                self.stderr.write(f"{path}: line {problem['line']}: {problem['message']}")
            raise CommandError(f"{path} not indexed, nothing added: {exc}") from None
        except BaseException:  # interrupted, or storage failed: no half-made corpus stays either
            with suppress(Exception):
                corpus_delete(corpus=corpus)
            raise
        skipped = f", {corpus.bad_rows} bad rows skipped" if corpus.bad_rows else ""
        self.stdout.write(
            self.style.SUCCESS(
                f"Corpus {corpus.pk} ({corpus.name}): {corpus.rows} triples{skipped}."
            )
        )
