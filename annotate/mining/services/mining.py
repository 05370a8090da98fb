"""Writes for mining: start a run, run it (the job's body), remove mined candidates.

A run adds, to every item of a split, up to K responses retrieved by BM25 from a corpus plus
the parroted message (ΔBLEU paper §4.1), as `Reference` rows with origin mined / parroted.
It is idempotent: a candidate duplicating one of the item's references — or one its owner
removed — is never added, so running again adds only what is new; one run at a time per
dataset keeps two runs from adding the same text side by side.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotate.datasets.models import Dataset, Item, Origin, Reference, SplitName
from annotate.datasets.runs import dataset_scope
from annotate.datasets.selectors import dataset_can_edit
from annotate.datasets.services.datasets import STATS_TASK
from annotate.mining.candidates import (
    DEFAULT_K,
    POOL_FACTOR,
    Candidate,
    Seed,
    choose_candidates,
    seed_query,
    text_key,
)
from annotate.mining.index import CorpusIndex
from annotate.mining.models import Corpus, DismissedCandidate
from annotate.mining.selectors import MINING_KIND, corpus_usable_by
from annotate.mining.services.corpora import corpus_index_dir
from annotate.mining.signals import candidates_added
from core.dispatch import dispatch
from core.runs.context import RunContext
from core.runs.engine import run_create
from core.runs.errors import RunRefused
from core.runs.models import Run
from core.runs.selectors import runs_active_exists

MAX_K = 100
MINING_BATCH = 50  # items per transaction and per progress report
MINED_ORIGINS = (Origin.MINED, Origin.PARROTED)
QUERY_ORIGINS = (Origin.ORIGINAL, Origin.WRITTEN)  # what "the seed's response" means


def mining_start(
    *,
    user: User,
    dataset: Dataset,
    corpus: Corpus,
    split: str = "dev",
    k: int = DEFAULT_K,
    enqueue: bool = True,
) -> Run:
    """Check a run can start and queue it; raise ValidationError saying why it cannot.

    `enqueue=False` leaves the run for the caller to run in its own process (`manage.py mine`).
    """
    if not dataset_can_edit(user=user, dataset=dataset):
        raise PermissionDenied("Only the dataset's owner can mine candidates for it.")
    if not corpus_usable_by(user=user, corpus=corpus):
        raise ValidationError({"corpus": "No such corpus."})
    if not corpus.is_ready:
        raise ValidationError({"corpus": f"The corpus is not ready ({corpus.status})."})
    if split not in SplitName.values:
        raise ValidationError({"split": f"Choose one of {', '.join(SplitName.values)}."})
    if not 1 <= k <= MAX_K:
        raise ValidationError({"k": f"Choose between 1 and {MAX_K} candidates per item."})
    with transaction.atomic():
        # The dataset's row lock makes "no run under way" and "create one" a single step; the
        # corpus's, that it is not deleted meanwhile (corpus_delete takes it too).
        Dataset.objects.select_for_update().get(pk=dataset.pk)
        if Corpus.objects.select_for_update().filter(pk=corpus.pk).first() is None:
            raise ValidationError({"corpus": "No such corpus."})
        if runs_active_exists(kind=MINING_KIND, scope=dataset_scope(dataset.pk)):
            raise ValidationError("A mining run is already under way for this dataset.")
        params = {
            "dataset_id": dataset.pk,
            "corpus_id": corpus.pk,
            "corpus": corpus.name,
            "split": split,
            "k": k,
        }
        return run_create(
            kind=MINING_KIND,
            owner=user,
            params=params,
            scope=dataset_scope(dataset.pk),
            send=enqueue,
        )


def mining_run(run: RunContext) -> dict:
    """The body of a mining run; returns counts of what it added."""
    dataset_id = int(run.params["dataset_id"])
    _refuse_if_deleted(dataset_id)  # a retried attempt would otherwise "succeed" on no items
    corpus = Corpus.objects.get(pk=run.params["corpus_id"])
    k = int(run.params.get("k", DEFAULT_K))
    source = {"corpus": corpus.name, "corpus_id": corpus.pk, "run": run.run_id}
    items = Item.objects.filter(split__dataset_id=dataset_id, split__name=run.params["split"])
    total = items.count()
    run.progress(0, total, "Opening the index")
    counts: Counter[str] = Counter()
    done, last = 0, -1
    with CorpusIndex(corpus_index_dir(corpus)) as index:
        while batch := list(
            items.filter(position__gt=last)
            .order_by("position")
            .prefetch_related("references", "dismissed_candidates")[:MINING_BATCH]
        ):
            plans = [(item, _mine_item(index, item, k, source)) for item in batch]
            added = _add_candidates(dataset_id, plans)
            counts.update(added)
            if added:
                candidates_added.send(sender=Reference, dataset_id=dataset_id)
            done, last = done + len(batch), batch[-1].position
            message = f"{counts['mined']} mined, {counts['parroted']} parroted"
            run.progress(done, total, message)
    _dataset_changed(dataset_id)
    return {"items": total, "mined": counts["mined"], "parroted": counts["parroted"]}


def _refuse_if_deleted(dataset_id: int, *, lock: bool = False) -> None:
    """Refuse (fail, never retried) when the dataset is gone. With `lock`, its row is locked
    until the caller's transaction ends, so a delete (which locks it too) waits for the batch
    and takes its candidates along, instead of leaving them pointing at deleted items."""
    datasets = Dataset.objects.filter(pk=dataset_id)
    if not (datasets.select_for_update() if lock else datasets).exists():
        raise RunRefused("The dataset was deleted while this run was under way.")


def _seed(item: Item) -> Seed:
    references = list(item.references.all())
    return Seed(
        external_id=item.external_id,
        context=item.context,
        message=item.message,
        responses=[r.text for r in references if r.origin in QUERY_ORIGINS],
        existing=[r.text for r in references],
        dismissed=frozenset(
            DismissedCandidate.objects.filter(item=item).values_list("key", flat=True)
        ),
    )


def _mine_item(index: CorpusIndex, item: Item, k: int, source: dict) -> list[Candidate]:
    seed = _seed(item)
    message, response = seed_query(seed)
    hits = index.search(message=message, response=response, k=k * POOL_FACTOR + 5)
    return choose_candidates(seed, ((h, index.row(h.doc)) for h in hits), k=k, source=source)


@transaction.atomic
def _add_candidates(dataset_id: int, plans: Iterable[tuple[Item, list[Candidate]]]) -> Counter[str]:
    _refuse_if_deleted(dataset_id, lock=True)
    plans = [(item, candidates) for item, candidates in plans if candidates]
    last = dict(
        Reference.objects.filter(item__in=[item for item, _ in plans])
        .values("item")
        .annotate(m=Max("position"))
        .values_list("item", "m")
    )
    rows = [
        Reference(
            item=item,
            text=c.text,
            origin=c.origin,
            provenance=c.provenance,
            position=last.get(item.pk, -1) + i,
        )
        for item, candidates in plans
        for i, c in enumerate(candidates, start=1)
    ]
    Reference.objects.bulk_create(rows)
    return Counter(r.origin for r in rows)


def _dataset_changed(dataset_id: int) -> None:
    Dataset.objects.filter(pk=dataset_id).update(updated_at=timezone.now())

    def enqueue() -> None:

        dispatch(STATS_TASK, dataset_id)

    transaction.on_commit(enqueue)


def references_remove_mined(*, user: User, dataset: Dataset, reference_ids: Iterable[int]) -> int:
    """Remove mined or parroted candidates of a dataset; mining will not add them again.

    Only candidates (not original or written references) go, and only the dataset owner's.
    """
    if not dataset_can_edit(user=user, dataset=dataset):
        raise PermissionDenied("Only the dataset's owner can remove candidates.")
    with transaction.atomic():
        references = list(
            Reference.objects.select_for_update().filter(
                pk__in=list(reference_ids), item__split__dataset=dataset, origin__in=MINED_ORIGINS
            )
        )
        DismissedCandidate.objects.bulk_create(
            [
                DismissedCandidate(
                    item_id=r.item_id,
                    key=text_key(r.text),
                    text=r.text,
                    origin=r.origin,
                    provenance=r.provenance,
                    dismissed_by=user,
                )
                for r in references
            ],
            ignore_conflicts=True,
        )
        Reference.objects.filter(pk__in=[r.pk for r in references]).delete()
        if references:
            _dataset_changed(dataset.pk)
    return len(references)
