"""Writes to corpora: adding one (upload or server path), indexing it, storing its index.

The index is built in a temporary folder and then copied through Django's storage API, so a
worker on another machine (or object storage in production) sees it; `corpus_index_dir` gives
a local folder to search it from, downloading it once into `var/cache` when storage is remote.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, NoReturn

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from annotate.mining.corpus import format_for, read_triples
from annotate.mining.index import META, EmptyCorpus, build_index
from annotate.mining.models import Corpus, CorpusStatus
from annotate.mining.selectors import CORPUS_INDEX_KIND, MINING_KIND
from core.bounded import MIB, Limits, drain, open_maybe_gzip
from core.errors import Conflict
from core.filesets import folder_delete
from core.lines import LineProblems
from core.runs.context import RunContext
from core.runs.engine import run_create
from core.runs.models import Run
from core.runs.selectors import runs_active_exists

log = logging.getLogger(__name__)

# An upload's first bytes are checked before it is accepted (about a quarter of a second): a
# bomb breaks its limit within them, so the uploader gets the refusal rather than a failed job.
# The indexing job checks the whole file with the same limits.
PREFLIGHT_BYTES = 64 * MIB


class CorpusInvalid(Exception):
    """The corpus has bad rows (and the owner did not ask to skip them) or no good one."""


def corpus_format_for(filename: str, requested: str = "") -> str:
    fmt = requested or format_for(filename)
    if fmt not in ("jsonl", "tsv"):
        raise ValidationError({"format": "Cannot tell the format from the file name; choose one."})
    return fmt


def corpus_preflight(upload: IO[bytes]) -> None:
    """Refuse (LimitExceeded, or ValidationError when damaged) a corpus file whose first
    PREFLIGHT_BYTES, inflated, break a limit."""
    reader = open_maybe_gzip(upload, label="The corpus", limits=Limits.for_corpora())
    drain(reader, up_to=PREFLIGHT_BYTES)
    upload.seek(0)


def corpus_create(*, owner: User, name: str, fmt: str, source: str, **fields: object) -> Corpus:
    corpus = Corpus(owner=owner, name=name, format=fmt, source=source[:500], **fields)
    corpus.full_clean(exclude=["file"])
    corpus.save()
    return corpus


@transaction.atomic
def corpus_upload(
    *, owner: User, name: str, upload: File, fmt: str = "", **fields: object
) -> tuple[Corpus, Run]:
    """Keep an uploaded corpus file in storage and queue its indexing."""
    fmt = corpus_format_for(upload.name or "", fmt)
    corpus_preflight(upload)
    corpus = corpus_create(owner=owner, name=name, fmt=fmt, source=upload.name or "", **fields)
    corpus.file.save(Path(upload.name or "corpus").name, upload, save=True)
    run = run_create(
        kind=CORPUS_INDEX_KIND,
        owner=owner,
        params={"corpus_id": corpus.pk},
        scope=f"corpus:{corpus.pk}",
    )
    return corpus, run


@transaction.atomic
def corpus_delete(*, corpus: Corpus) -> None:
    """Delete the corpus with its uploaded file and its index (in storage, and this machine's
    cached copy). Raises Conflict, deleting nothing, while a run reads it: its indexing, or a
    mining run (mining_start takes the same row lock, so none starts in between)."""
    if Corpus.objects.select_for_update().filter(pk=corpus.pk).first() is None:
        return  # deleted already
    if runs_active_exists(kind=CORPUS_INDEX_KIND, scope=f"corpus:{corpus.pk}"):
        raise Conflict("The corpus is being indexed: wait for its run to end, then delete it.")
    if runs_active_exists(kind=MINING_KIND, corpus_id=corpus.pk):
        raise Conflict("A mining run reads the corpus: wait for it to end, then delete it.")
    upload = corpus.file.name or ""
    Corpus.objects.filter(pk=corpus.pk).delete()
    # Once the row is gone for good: a rolled-back delete keeps its files.
    transaction.on_commit(lambda: _remove_files(corpus.pk, upload))


def corpus_delete_confirmed(*, corpus: Corpus, confirm: str) -> None:
    """`corpus_delete` from the page, where the owner confirms by typing the corpus's name."""
    if confirm.strip() != corpus.name:
        raise ValidationError(
            {"confirm": f"Type the corpus's name ({corpus.name}) to confirm the deletion."}
        )
    corpus_delete(corpus=corpus)


def _remove_files(corpus_id: int, upload: str) -> None:
    try:
        if upload:
            default_storage.delete(upload)
        folder_delete(f"corpora/{corpus_id}")
    except OSError:  # the row is gone: what is left is unreferenced, not wrong
        log.exception("could not delete the files of corpus %s", corpus_id)
    shutil.rmtree(_local_cache(f"corpora/{corpus_id}"), ignore_errors=True)


def corpus_index_job(run: RunContext) -> dict:
    """The body of an indexing run: read the corpus file from storage, index it."""
    corpus = Corpus.objects.get(pk=run.params["corpus_id"])
    size = corpus.file.size
    with corpus.file.open("rb") as raw:

        def progress(rows: int) -> None:
            message = f"{rows:,} triples read"
            run.progress(raw.tell(), size, message)

        corpus = corpus_build_index(corpus=corpus, raw=raw, progress=progress)
    return {"rows": corpus.rows, "bad_rows": corpus.bad_rows}


def corpus_build_index(
    *, corpus: Corpus, raw: IO[bytes], progress: Callable[[int], None] | None = None
) -> Corpus:
    """Stream `raw` into a new index and store it; raise CorpusInvalid (recorded) if refused."""
    Corpus.objects.filter(pk=corpus.pk).update(status=CorpusStatus.INDEXING)
    problems = LineProblems()
    with tempfile.TemporaryDirectory(prefix="corpus-index-") as tmp:
        folder = Path(tmp) / "index"
        try:
            triples = read_triples(raw, corpus.format, problems)
            meta = build_index(triples, folder, language=corpus.language, progress=progress)
        except EmptyCorpus:
            _refuse(corpus, problems, "The corpus holds no usable triple.")
        except ValidationError as exc:  # over a limit (LimitExceeded), or a damaged gzip
            _refuse(corpus, problems, " ".join(exc.messages))
        if problems.bad_lines and not corpus.skip_bad_rows:
            _refuse(corpus, problems, f"{problems.bad_lines} bad rows; nothing was indexed.")
        prefix = _store_index(corpus, folder)
    Corpus.objects.filter(pk=corpus.pk).update(
        status=CorpusStatus.READY,
        rows=meta["rows"],
        bad_rows=problems.bad_lines,
        problems=[p.as_dict("line", "field", "message") for p in problems.problems],
        index_path=prefix,
        index_meta=meta,
        indexed_at=timezone.now(),
    )
    corpus.refresh_from_db()
    return corpus


def _refuse(corpus: Corpus, problems: LineProblems, message: str) -> NoReturn:
    Corpus.objects.filter(pk=corpus.pk).update(
        status=CorpusStatus.FAILED,
        bad_rows=problems.bad_lines,
        problems=[p.as_dict("line", "field", "message") for p in problems.problems],
    )
    first = f" First: {problems.problems[0]}." if problems.problems else ""
    raise CorpusInvalid(message + first)


def _store_index(corpus: Corpus, folder: Path) -> str:
    prefix = f"corpora/{corpus.pk}/index-{timezone.now():%Y%m%d%H%M%S%f}"
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = f"{prefix}/{path.relative_to(folder).as_posix()}"
        with path.open("rb") as handle:
            saved = default_storage.save(name, File(handle))
        if saved != name:  # the storage renamed it: the folder would not be one index
            raise RuntimeError(f"Storage saved {name} as {saved}.")
    return prefix


def corpus_index_dir(corpus: Corpus) -> Path:
    """A local folder holding the corpus's index, for searching."""
    if not corpus.is_ready:
        raise ValueError(f"Corpus {corpus} is not indexed.")
    try:
        local = Path(default_storage.path(corpus.index_path))
    except NotImplementedError:  # object storage has no local paths
        local = None
    if local is not None and (local / META).exists():
        return local
    return _cached_copy(corpus.index_path)  # fetched once per index version


def _local_cache(prefix: str) -> Path:
    return Path(settings.VAR_DIR) / "cache" / prefix


def _cached_copy(prefix: str) -> Path:
    target = _local_cache(prefix)
    if (target / ".complete").exists():
        return target
    partial = Path(tempfile.mkdtemp(dir=target.parent if target.parent.exists() else None))
    _download(prefix, partial)
    (partial / ".complete").touch()
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        partial.rename(target)
    except OSError:  # another process finished first
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _download(prefix: str, folder: Path) -> None:
    folders, files = default_storage.listdir(prefix)
    folder.mkdir(parents=True, exist_ok=True)
    for name in files:
        with (
            default_storage.open(f"{prefix}/{name}", "rb") as src,
            (folder / name).open("wb") as out,
        ):
            shutil.copyfileobj(src, out)
    for sub in folders:
        _download(f"{prefix}/{sub}", folder / sub)
