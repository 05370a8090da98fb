"""Pages for mining: corpora (upload, status), starting a run, reviewing its candidates."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotate.accounts.selectors import user_is_researcher
from annotate.datasets.models import Dataset, SplitName
from annotate.datasets.selectors import dataset_get_editable
from annotate.mining.candidates import DEFAULT_K
from annotate.mining.models import Corpus
from annotate.mining.selectors import (
    corpus_can_delete,
    corpus_get_deletable,
    corpus_get_usable,
    corpus_index_job,
    corpus_list_ready,
    corpus_list_usable,
    mined_candidates,
    mining_job_latest,
)
from annotate.mining.services.corpora import corpus_delete_confirmed, corpus_upload
from annotate.mining.services.mining import MAX_K, mining_start, references_remove_mined
from core.auth_request import AuthenticatedRequest
from core.bounded import LimitExceeded
from core.converters import finite_or_none, natural_or_none
from core.forms import (
    LimitedFileField,
    confirmation_post,
    deletion_page,
    form_add_service_errors,
)

CANDIDATES_PER_PAGE = 50


class CorpusForm(forms.Form):
    FORMAT_CHOICES = [("", "Guess from the file name"), ("jsonl", "JSONL"), ("tsv", "TSV")]

    name = forms.CharField(max_length=200)
    file = LimitedFileField(
        limit_setting="CORPUS_MAX_BYTES",
        help_text="JSONL or TSV triples (context, message, response); .gz too.",
    )
    format = forms.ChoiceField(choices=FORMAT_CHOICES, required=False)
    language = forms.CharField(max_length=35, initial="en")
    skip_bad_rows = forms.BooleanField(
        required=False, help_text="Index the good rows and list the bad ones instead of failing."
    )


class MiningForm(forms.Form):
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.none(), empty_label=None)
    split = forms.ChoiceField(choices=SplitName.choices)
    k = forms.IntegerField(
        min_value=1, max_value=MAX_K, initial=DEFAULT_K, label="Candidates per item"
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["corpus"].queryset = corpus_list_ready(user=user)


def _researcher(request: AuthenticatedRequest) -> None:
    if not user_is_researcher(request.user):
        raise PermissionDenied("Only researchers work with corpora.")


def _owned_dataset(request: AuthenticatedRequest, slug: str) -> Dataset:
    return dataset_get_editable(
        user=request.user, slug=slug, refusal="Only the dataset's owner can mine candidates for it."
    )


@login_required
@require_http_methods(["GET", "POST"])
def corpus_list(request: AuthenticatedRequest) -> HttpResponse:
    _researcher(request)
    form = CorpusForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        try:
            corpus, _ = corpus_upload(
                owner=request.user, upload=data.pop("file"), fmt=data.pop("format"), **data
            )
        except LimitExceeded as exc:
            form.add_error("file", exc.messages)
        except ValidationError as exc:
            form_add_service_errors(form, exc)
        else:
            messages.success(request, f"Corpus {corpus.name} uploaded; indexing it now.")
            return redirect("corpus-detail", corpus_id=corpus.pk)
    corpora = corpus_list_usable(user=request.user)
    return render(request, "annotate/mining/corpus_list.html", {"corpora": corpora, "form": form})


@login_required
def corpus_detail(request: AuthenticatedRequest, corpus_id: int) -> HttpResponse:
    corpus = corpus_get_usable(user=request.user, corpus_id=corpus_id)
    context = {
        "corpus": corpus,
        "job": corpus_index_job(corpus=corpus),
        "can_delete": corpus_can_delete(user=request.user, corpus=corpus),
    }
    return render(request, "annotate/mining/corpus_detail.html", context)


def _deletion_consequences(corpus: Corpus) -> list[str]:
    what = f"its {corpus.rows:,} indexed triples" if corpus.is_ready else "what it holds"
    return [
        f"delete the corpus {corpus.name}, {what}, its uploaded file and its index;",
        "leave the candidates already mined from it as they are (their provenance names it).",
    ]


@login_required
@require_http_methods(["GET", "POST"])
def corpus_delete_view(request: AuthenticatedRequest, corpus_id: int) -> HttpResponse:
    corpus = corpus_get_deletable(user=request.user, corpus_id=corpus_id)
    answer = confirmation_post(
        request, corpus_delete_confirmed, corpus=corpus, success=f"Corpus {corpus.name} deleted."
    )
    if answer.done:
        return redirect("corpus-list")
    return deletion_page(
        request,
        answer,
        kind="corpus",
        name=corpus.name,
        consequences=_deletion_consequences(corpus),
        action=reverse("corpus-delete", args=[corpus.pk]),
        cancel_url=reverse("corpus-detail", args=[corpus.pk]),
    )


@login_required
@require_http_methods(["GET", "POST"])
def dataset_mining(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = _owned_dataset(request, slug)
    form = MiningForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            mining_start(user=request.user, dataset=dataset, **form.cleaned_data)
        except ValidationError as exc:
            form_add_service_errors(form, exc)
        else:
            messages.success(request, "Mining started.")
            return redirect("dataset-mining", slug=dataset.slug)
    job = mining_job_latest(dataset=dataset)
    # The finished run's counts, or None: a template reading `result.items` of a run that has
    # no result yet would print the dict's `items` method ("dict_items([])").
    outcome = job.result if job is not None and "items" in (job.result or {}) else None
    context = {"dataset": dataset, "form": form, "job": job, "outcome": outcome}
    return render(request, "annotate/mining/dataset_mining.html", context)


def _score(value: str | None) -> float | None:
    return finite_or_none(value)


@login_required
@require_http_methods(["GET", "POST"])
def mined_review(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = _owned_dataset(request, slug)
    if request.method == "POST":
        chosen = (natural_or_none(i) for i in request.POST.getlist("remove"))
        ids = [i for i in chosen if i is not None]
        removed = references_remove_mined(user=request.user, dataset=dataset, reference_ids=ids)
        messages.success(request, f"Removed {removed} candidates.")
        return redirect(request.get_full_path())
    filters = {
        "split": request.GET.get("split") if request.GET.get("split") in SplitName.values else "",
        "min_score": _score(request.GET.get("min_score")),
        "max_score": _score(request.GET.get("max_score")),
    }
    candidates = mined_candidates(dataset=dataset, **filters)  # type: ignore[arg-type]
    page = Paginator(candidates, CANDIDATES_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "dataset": dataset,
        "page": page,
        "filters": filters,
        "splits": SplitName.choices,
        "query": query,
    }
    return render(request, "annotate/mining/mined_review.html", context)
