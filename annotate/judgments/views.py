"""Pages for imported human judgments: upload a bundle of files, read what the import found."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotate.datasets.models import SplitName
from annotate.datasets.selectors import dataset_get_editable
from annotate.judgments.selectors import judgment_set_get_managed
from annotate.judgments.services.importing import JudgmentsRejected, judgments_import_files
from core.auth_request import AuthenticatedRequest


class JudgmentUploadForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="Default: the file's name.")
    split = forms.ChoiceField(choices=SplitName.choices, initial=SplitName.TEST)
    judgments = forms.FileField(help_text="Per-judge scores: judge, id, system, criteria …")
    systems = forms.FileField(required=False, help_text="System responses: system, id, response")
    contexts = forms.FileField(required=False, help_text="Contexts: id, depth, context")
    references = forms.FileField(required=False, help_text="References: id, ref1, ref2, …")

    def clean(self):
        data = super().clean()
        for key, upload in data.items():
            if hasattr(upload, "size") and upload.size > settings.IMPORT_MAX_BYTES:
                self.add_error(key, "The file is larger than the import limit.")
        return data


@login_required
@require_http_methods(["GET", "POST"])
def judgments_upload(request: AuthenticatedRequest, slug: str) -> HttpResponse:
    dataset = dataset_get_editable(
        user=request.user,
        slug=slug,
        refusal="Only the owner can import judgments into this dataset.",
    )
    form = JudgmentUploadForm(request.POST or None, request.FILES or None)
    problems: list = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            imported = judgments_import_files(
                dataset=dataset,
                owner=request.user,
                name=data["name"],
                split=data["split"],
                files=request.FILES,
            )
        except JudgmentsRejected as exc:
            problems = [p.as_dict() for p in exc.problems] or [
                {"file": "judgments", "line": 0, "message": "no judgment rows", "level": "error"}
            ]
        else:
            report = imported.report
            messages.success(request, f"Imported {report['judgments']} judgments.")
            return redirect("judgment-set-detail", judgment_set_id=imported.pk)
    context = {"dataset": dataset, "form": form, "problems": problems}
    return render(
        request, "annotate/judgments/upload.html", context, status=400 if problems else 200
    )


@login_required
def judgment_set_detail(request: AuthenticatedRequest, judgment_set_id: int) -> HttpResponse:
    judgment_set = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
    return render(request, "annotate/judgments/detail.html", {"judgment_set": judgment_set})
