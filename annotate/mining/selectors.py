"""Reads for mining: which corpora a user may mine from, runs, and mined candidates."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import F, FloatField, Q, QuerySet
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from annotate.accounts.selectors import user_is_researcher
from annotate.datasets.models import Dataset, Origin, Reference
from annotate.datasets.runs import dataset_scope
from annotate.mining.models import Corpus, CorpusStatus
from core.errors import NotFound
from core.runs.models import Run
from core.runs.selectors import runs_latest

MINING_KIND = "mining"
CORPUS_INDEX_KIND = "corpus-index"


def corpus_list_usable(*, user: User | AnonymousUser) -> QuerySet[Corpus]:
    """The user's own corpora and the shared ones, for researchers (staff see all). Corpora are
    shared with researchers: a rater's API answered with them, while the pages refused."""
    corpora = Corpus.objects.select_related("owner")
    if user.is_authenticated and user.is_staff:
        return corpora
    if not user_is_researcher(user):
        return corpora.none()
    return corpora.filter(Q(owner=user) | Q(shared=True))


def corpus_usable_by(*, user: User | AnonymousUser, corpus: Corpus) -> bool:
    return corpus_list_usable(user=user).filter(pk=corpus.pk).exists()


def corpus_get_usable(*, user: User | AnonymousUser, corpus_id: int) -> Corpus:
    """A corpus the user may see; anyone else's private corpus is a 404."""
    try:
        return corpus_list_usable(user=user).get(pk=corpus_id)
    except Corpus.DoesNotExist:
        raise NotFound("No such corpus.") from None


def corpus_can_delete(*, user: User | AnonymousUser, corpus: Corpus) -> bool:
    return user.is_authenticated and (user.is_staff or corpus.owner_id == user.pk)


def corpus_get_deletable(*, user: User | AnonymousUser, corpus_id: int) -> Corpus:
    """A corpus the user may delete (their own; staff any); a 403 to one who may only see it,
    the 404 of `corpus_get_usable` to others."""
    corpus = corpus_get_usable(user=user, corpus_id=corpus_id)
    if not corpus_can_delete(user=user, corpus=corpus):
        raise PermissionDenied("Only the corpus's owner can delete it.")
    return corpus


def corpus_list_ready(*, user: User | AnonymousUser) -> QuerySet[Corpus]:
    return corpus_list_usable(user=user).filter(status=CorpusStatus.READY)


def corpus_index_job(*, corpus: Corpus) -> Run | None:
    """The latest indexing run of an uploaded corpus (none for one added from a server path)."""
    return runs_latest(kind=CORPUS_INDEX_KIND, scope=f"corpus:{corpus.pk}")


def mining_job_latest(*, dataset: Dataset) -> Run | None:
    return runs_latest(kind=MINING_KIND, scope=dataset_scope(dataset.pk))


def mined_candidates(
    *,
    dataset: Dataset,
    split: str | None = None,
    min_score: float | None = None,
    max_score: float | None = None,
) -> QuerySet[Reference]:
    """Mined and parroted candidates, best BM25 score first (parroted ones have none).

    A score bound keeps only mined candidates: parroted ones have no score to compare.
    """
    candidates = (
        Reference.objects.filter(
            item__split__dataset=dataset, origin__in=[Origin.MINED, Origin.PARROTED]
        )
        .select_related("item__split")
        .annotate(score=Cast(KT("provenance__score"), FloatField()))
    )
    if split:
        candidates = candidates.filter(item__split__name=split)
    if min_score is not None:
        candidates = candidates.filter(score__gte=min_score)
    if max_score is not None:
        candidates = candidates.filter(score__lte=max_score)
    return candidates.order_by(F("score").desc(nulls_last=True), "item__position", "position")


def corpus_by_id(*, corpus_id: int) -> Corpus | None:
    """The corpus of that id, whoever may use it (for management commands)."""
    return Corpus.objects.filter(pk=corpus_id).first()
