"""Pages of correlation studies: start one, follow its progress, read and export the result."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotate.datasets.models import SplitName
from annotate.releases.models import Release
from core.auth_request import AuthenticatedRequest
from scoring.study.selectors import studies_of, study_choices, study_get_managed, study_plots
from scoring.study.services import study_create, study_export_csv

EMPTY: Any = Release.objects.none()


class StudyForm(forms.Form):
    name = forms.CharField(max_length=200)
    release = forms.ModelChoiceField(queryset=EMPTY)
    split = forms.ChoiceField(choices=SplitName.choices, initial=SplitName.TEST)
    judgment_set = forms.ModelChoiceField(queryset=EMPTY, required=False, label="Judgments")
    output_campaign = forms.ModelChoiceField(queryset=EMPTY, required=False, label="Campaign")
    criterion = forms.CharField(max_length=100, required=False)
    unit_size = forms.IntegerField(min_value=1, max_value=1000, initial=100, label="Unit size M")
    assignments = forms.IntegerField(min_value=1, max_value=10_000, initial=1000)
    theta = forms.FloatField(min_value=-1, max_value=1, initial=0.6, label="Threshold θ")

    def __init__(self, *args, choices: dict, **kwargs):
        super().__init__(*args, **kwargs)
        for name, queryset in choices.items():
            field: Any = self.fields[name]
            field.queryset = queryset


@login_required
@require_http_methods(["GET", "POST"])
def study_list(request: AuthenticatedRequest) -> HttpResponse:
    form = StudyForm(request.POST or None, choices=study_choices(user=request.user))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        options = {k: data[k] for k in ("unit_size", "assignments", "theta")}
        try:
            study = study_create(
                owner=request.user,
                name=data["name"],
                release=data["release"],
                split=data["split"],
                judgment_set=data["judgment_set"],
                output_campaign=data["output_campaign"],
                criterion=data["criterion"],
                options=options,
            )
        except ValidationError as exc:
            form.add_error(None, " ".join(exc.messages))
        else:
            messages.success(request, "Study started.")
            return redirect("study-detail", study_id=study.pk)
    context = {"form": form, "studies": studies_of(user=request.user)}
    return render(request, "scoring/study/list.html", context)


@login_required
def study_detail(request: AuthenticatedRequest, study_id: int) -> HttpResponse:
    study = study_get_managed(user=request.user, pk=study_id)
    context = {
        "study": study,
        "table": study.result.get("table", []),
        "plots": study_plots(study=study),
    }
    return render(request, "scoring/study/detail.html", context)


@login_required
def study_export(request: AuthenticatedRequest, study_id: int, fmt: str) -> HttpResponse:
    study = study_get_managed(user=request.user, pk=study_id)
    if fmt == "csv":
        response = HttpResponse(study_export_csv(study), content_type="text/csv; charset=utf-8")
    elif fmt == "json":
        body = json.dumps(
            {
                "study": study.pk,
                "name": study.name,
                "options": study.options,
                "result": study.result,
            },
            indent=1,
        )
        response = HttpResponse(body, content_type="application/json; charset=utf-8")
    else:
        raise Http404("Unknown format.")
    response["Content-Disposition"] = f'attachment; filename="study-{study.pk}.{fmt}"'
    return response
