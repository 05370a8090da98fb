"""Pages for imported human judgments: upload a bundle of files, say which column is what when
the guess is unsure, read what the import found."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotate.datasets.models import Dataset
from annotate.datasets.selectors import dataset_get_editable
from annotate.judgments.bundles import BUNDLE_FILES, ColumnsUnsure, judgments_preview
from annotate.judgments.columns import MappedColumn
from annotate.judgments.forms import ColumnsForm, JudgmentUploadForm, MetricScoresForm
from annotate.judgments.models import JudgmentSet
from annotate.judgments.selectors import external_metrics_of, judgment_set_get_managed
from annotate.judgments.services.importing import JudgmentsRejected, judgments_import_files
from annotate.judgments.services.metrics import MetricScoresRejected, external_metrics_import
from annotate.judgments.services.staging import upload_stage, upload_staged, upload_unstage
from annotate.judgments.summary_exports import NO_INDIVIDUAL, summary_charts, summary_csv
from annotate.judgments.summary_selectors import judgment_set_summary
from core.auth_request import AuthenticatedRequest
from core.lines import problems_counted

UPLOAD = "annotate/judgments/upload.html"
COLUMNS = "annotate/judgments/columns.html"


def _dataset(request: AuthenticatedRequest, slug: str) -> Dataset:
    return dataset_get_editable(
        user=request.user,
        slug=slug,
        refusal="Only the owner can import judgments into this dataset.",
    )


def _import(request, dataset, files, form, columns: list[MappedColumn] | None = None):
    """The import, or why not: (imported, None) or (None, counted problems or a message)."""
    data = form.cleaned_data
    try:
        imported = judgments_import_files(
            dataset=dataset,
            owner=request.user,
            name=data["name"],
            split=data["split"],
            files=files,
            columns=columns,
            options=form.options(),
        )
    except JudgmentsRejected as exc:
        return None, [p.as_dict() for p in problems_counted(exc.problems)]
    messages.success(request, f"Imported {imported.report['judgments']} judgments.")
    return imported, None


def _done(imported: JudgmentSet) -> HttpResponse:
    return redirect("judgment-set-detail", judgment_set_id=imported.pk)


@login_required
@require_http_methods(["GET", "POST"])
def judgments_upload(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = _dataset(request, slug)
    form = JudgmentUploadForm(request.POST or None, request.FILES or None)
    problems = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        files = {k: (data[k].name[-100:], data[k].read()) for k in BUNDLE_FILES if data.get(k)}
        try:
            imported, problems = _import(request, dataset, files, form)
        except ColumnsUnsure as exc:
            token = upload_stage(user=request.user, dataset=dataset, files=files)
            columns = ColumnsForm(initial={**data, "token": token}, preview=exc.preview)
            return _columns_page(request, dataset, columns, exc.reasons)
        if imported is not None:
            return _done(imported)
    context = {"dataset": dataset, "form": form, "problems": problems}
    return render(request, UPLOAD, context, status=400 if problems else 200)


def _columns_page(request, dataset, form: ColumnsForm, reasons: list[str], status: int = 200):
    context = {"dataset": dataset, "form": form, "reasons": reasons}
    return render(request, COLUMNS, context, status=status)


@login_required
@require_POST
def judgments_upload_columns(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    """The second step: the staged files imported with the columns as the user chose them."""
    dataset = _dataset(request, slug)
    try:
        files = upload_staged(
            token=request.POST.get("token", ""), user=request.user, dataset=dataset
        )
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("judgments-upload", slug=dataset.slug)
    form = ColumnsForm(request.POST, preview=judgments_preview(files=files))
    if not form.is_valid():
        return _columns_page(request, dataset, form, [], status=400)
    try:
        imported, problems = _import(request, dataset, files, form, form.mapping())
    except ColumnsUnsure as exc:
        form.add_error(None, exc.messages[0])
        return _columns_page(request, dataset, form, exc.reasons, status=400)
    if imported is None:
        form.add_error(None, "No judgment could be read; nothing was written.")
        context = {"dataset": dataset, "form": form, "reasons": [], "problems": problems}
        return render(request, COLUMNS, context, status=400)
    upload_unstage(token=form.cleaned_data["token"], user=request.user, dataset=dataset)
    return _done(imported)


def _detail(request, judgment_set, form=None, problems=None, status=200) -> HttpResponse:
    context = {
        "judgment_set": judgment_set,
        "metrics": external_metrics_of(judgment_set=judgment_set),
        "metric_form": form or MetricScoresForm(),
        "metric_problems": problems,
    }
    return render(request, "annotate/judgments/detail.html", context, status=status)


@login_required
def judgment_set_detail(request: AuthenticatedRequest, judgment_set_id: int) -> HttpResponse:
    judgment_set = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
    return _detail(request, judgment_set)


@login_required
@require_POST
def judgment_set_metrics_upload(
    request: AuthenticatedRequest, judgment_set_id: int
) -> HttpResponse:
    """Scores of metrics computed elsewhere, added to the set (the form on its page)."""
    judgment_set = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
    form = MetricScoresForm(request.POST, request.FILES)
    if not form.is_valid():
        return _detail(request, judgment_set, form, status=400)
    try:
        created = external_metrics_import(
            judgment_set=judgment_set, user=request.user, **form.upload_arguments()
        )
    except MetricScoresRejected as exc:
        return _detail(request, judgment_set, form, [str(p) for p in exc.problems], status=400)
    except ValidationError as exc:
        form.add_error(None, " ".join(exc.messages))
        return _detail(request, judgment_set, form, status=400)
    names = ", ".join(m.name for m in created)
    messages.success(request, f"Added the scores of {names}.")
    return _done(judgment_set)


@login_required
def judgment_set_summary_page(request: AuthenticatedRequest, judgment_set_id: int) -> HttpResponse:
    """Each system's mean per criterion over all judged items, intervals, agreement, report."""
    judgment_set = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
    summary = judgment_set_summary(judgment_set=judgment_set)
    context = {
        "judgment_set": judgment_set,
        "summary": summary,
        "charts": summary_charts(summary),
        "no_individual": NO_INDIVIDUAL,
    }
    return render(request, "annotate/judgments/summary.html", context)


@login_required
def judgment_set_summary_csv(request: AuthenticatedRequest, judgment_set_id: int) -> HttpResponse:
    judgment_set = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
    summary = judgment_set_summary(judgment_set=judgment_set)
    response = HttpResponse(summary_csv(summary), content_type="text/csv; charset=utf-8")
    name = f"judgments-{judgment_set.pk}-summary.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
