"""Pages for datasets: the home page, a dataset, creating, editing and deleting one, importing
and exporting."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotate.accounts.selectors import user_is_researcher
from annotate.datasets.formats import FileProblems
from annotate.datasets.forms import DatasetEditForm, DatasetForm, DeleteForm, ImportForm
from annotate.datasets.models import SplitName
from annotate.datasets.selectors import (
    dataset_can_edit,
    dataset_export_jsonl,
    dataset_get_editable,
    dataset_get_visible,
    dataset_items,
    dataset_list_visible,
)
from annotate.datasets.selectors.deletion import dataset_deletion_preview
from annotate.datasets.services.datasets import (
    DeletionRefused,
    dataset_create,
    dataset_creator_check,
    dataset_delete,
    dataset_import_file,
    dataset_update,
    import_format_for,
)
from annotate.datasets.visibility import dataset_hidden_splits, dataset_splits_hidden_from
from core.auth_request import AuthenticatedRequest
from core.forms import form_call
from core.lines import file_lines

ITEMS_PER_PAGE = 20


def home(request: HttpRequest) -> HttpResponse:
    datasets = dataset_list_visible(user=request.user)
    return render(
        request,
        "annotate/home.html",
        {"datasets": datasets, "can_create": user_is_researcher(request.user)},
    )


def dataset_detail(request: HttpRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_visible(user=request.user, slug=slug)
    split = request.GET.get("split", "")
    split = split if split in SplitName.values else ""
    hidden = dataset_splits_hidden_from(user=request.user, dataset=dataset)
    items = dataset_items(dataset=dataset, split=split or None, hidden=hidden)
    page = Paginator(items, ITEMS_PER_PAGE)
    can_edit = dataset_can_edit(user=request.user, dataset=dataset)
    context = {
        "dataset": dataset,
        "page": page.get_page(request.GET.get("page")),
        "split": split,
        "splits": SplitName.choices,
        "can_edit": can_edit,
        "hidden_splits": sorted(hidden),
        "revealable": sorted(dataset_hidden_splits(dataset=dataset)) if can_edit else [],
    }
    return render(request, "annotate/dataset_detail.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def dataset_new(request: AuthenticatedRequest) -> HttpResponse:
    dataset_creator_check(user=request.user)  # a rater gets no form to fill in
    form = DatasetForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        dataset = form_call(form, dataset_create, owner=request.user, **form.cleaned_data)
        if dataset is not None:
            messages.success(request, f"Dataset {dataset.name} created. Import items next.")
            return redirect("dataset-import", slug=dataset.slug)
    return render(request, "annotate/dataset_form.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def dataset_import_view(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_editable(
        user=request.user, slug=slug, refusal="Only the owner can import into this dataset."
    )
    form = ImportForm(request.POST or None, request.FILES or None)
    problems = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            fmt = import_format_for(upload.name, form.cleaned_data["format"])
            summary = dataset_import_file(dataset=dataset, lines=file_lines(upload), fmt=fmt)
        except ValidationError as exc:
            form.add_error("format", exc.message_dict.get("format", exc.messages))
        except FileProblems as exc:
            problems = exc.problems
        else:
            messages.success(
                request, f"Imported {summary.items} items and {summary.references} references."
            )
            return redirect("dataset-detail", slug=dataset.slug)
    context = {"dataset": dataset, "form": form, "problems": problems}
    return render(request, "annotate/dataset_import.html", context, status=400 if problems else 200)


def dataset_export(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    dataset = dataset_get_visible(user=request.user, slug=slug)
    hidden = dataset_splits_hidden_from(user=request.user, dataset=dataset)
    response = StreamingHttpResponse(
        dataset_export_jsonl(dataset=dataset, hidden=hidden),
        content_type="application/jsonl; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{dataset.slug}.jsonl"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def dataset_edit(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_editable(
        user=request.user, slug=slug, refusal="Only the dataset's owner can change it."
    )
    form = DatasetEditForm(request.POST or None, instance=dataset)
    if request.method == "POST" and form.is_valid():
        # The form's own cleaning has set the fields on the instance; the service saves them.
        fields = {name: form.cleaned_data[name] for name in form.Meta.fields}
        if form_call(form, dataset_update, dataset=dataset, **fields) is not None:
            messages.success(request, "Saved.")
            return redirect("dataset-detail", slug=dataset.slug)
    context = {"dataset": dataset, "form": form}
    return render(
        request, "annotate/dataset_edit.html", context, status=400 if form.errors else 200
    )


@login_required
@require_http_methods(["GET", "POST"])
def dataset_delete_view(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_editable(
        user=request.user, slug=slug, refusal="Only the dataset's owner can delete it."
    )
    form = DeleteForm(request.POST or None, slug=dataset.slug)
    preview = dataset_deletion_preview(dataset=dataset)
    if request.method == "POST" and form.is_valid():
        try:
            gone = dataset_delete(dataset=dataset)
        except DeletionRefused as exc:
            preview = exc.preview
        else:
            messages.success(request, f"Dataset {gone.dataset.name} deleted.")
            return redirect("home")
    status = 409 if request.method == "POST" and not preview.can_delete else 200
    status = 400 if form.errors else status
    context = {"dataset": dataset, "form": form, "preview": preview}
    return render(request, "annotate/dataset_delete.html", context, status=status)
