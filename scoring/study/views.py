"""Pages of correlation studies: start one, follow its progress, read and export the result."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotate.datasets.models import SplitName
from annotate.releases.models import Release
from core.auth_request import AuthenticatedRequest
from core.forms import form_call
from scoring.study.analysis.configs import ASSIGNMENTS, ORDERS, THETAS, UNIT_SIZES
from scoring.study.models import CriteriaCombination, LeaveOneOut
from scoring.study.selectors import (
    studies_of,
    study_choices,
    study_criteria_tables,
    study_get_managed,
    study_names,
    study_plots,
    study_segment_levels,
    study_system_levels,
    study_unit_size,
)
from scoring.study.services import study_create, study_export_csv

EMPTY: Any = Release.objects.none()


class StudyForm(forms.Form):
    name = forms.CharField(max_length=200)
    judgment_set = forms.ModelChoiceField(queryset=EMPTY, required=False, label="Judgments")
    output_campaign = forms.ModelChoiceField(
        queryset=EMPTY, required=False, label="or a campaign on outputs"
    )
    split = forms.ChoiceField(choices=SplitName.choices, initial=SplitName.TEST)
    criteria = forms.MultipleChoiceField(
        required=False, help_text="None chosen: the first criterion of the judgments."
    )
    combine = forms.ChoiceField(
        choices=CriteriaCombination.choices, required=False, label="Several criteria"
    )
    release = forms.ModelChoiceField(
        queryset=EMPTY, required=False, label="Weights of a release", empty_label="—"
    )
    weight_campaign = forms.ModelChoiceField(
        queryset=EMPTY,
        required=False,
        label="or of a campaign",
        empty_label="—",
        help_text="Neither: every reference counts +1 (plain multi-reference metrics).",
    )
    excluded_systems = forms.MultipleChoiceField(required=False, label="Exclude systems")
    leave_one_out = forms.ChoiceField(
        choices=LeaveOneOut.choices, required=False, label="Leave one out"
    )
    external = forms.MultipleChoiceField(
        required=False,
        label="Metrics computed elsewhere",
        help_text="Uploaded to the judgments, or to the leaderboard whose submissions the "
        "campaign rates; none chosen: every one of them.",
    )
    no_external = forms.BooleanField(required=False, label="Leave them all out")
    unit_size = forms.IntegerField(
        min_value=UNIT_SIZES[0], max_value=UNIT_SIZES[1], initial=100, label="Unit size M"
    )
    assignments = forms.IntegerField(
        min_value=ASSIGNMENTS[0], max_value=ASSIGNMENTS[1], initial=1000
    )
    theta = forms.FloatField(
        min_value=THETAS[0], max_value=THETAS[1], initial=0.6, label="Threshold θ"
    )
    order = forms.TypedChoiceField(
        choices=[(n, f"{n}-grams") for n in range(ORDERS[0], ORDERS[1] + 1)],
        coerce=int,
        empty_value=None,
        required=False,
        initial=2,
        label="BLEU family's n-gram order",
        help_text="2 as in the paper's Table 2; a leaderboard's BLEU is 4.",
    )

    def __init__(self, *args, choices: dict, names: dict[str, list[str]], **kwargs):
        super().__init__(*args, **kwargs)
        for name, queryset in choices.items():
            field: Any = self.fields[name]
            field.queryset = queryset
        # Names offered from what exists (never typed); the service checks them per source.
        for name, values in names.items():
            multiple: Any = self.fields[name]
            multiple.choices = [(v, v) for v in values]


@login_required
@require_http_methods(["GET", "POST"])
def study_list(request: AuthenticatedRequest) -> HttpResponse:
    form = StudyForm(
        request.POST or None,
        choices=study_choices(user=request.user),
        names=study_names(user=request.user),
    )
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        # Left out of the form: the defaults (side by side; leave one out when needed).
        data["combine"] = data["combine"] or CriteriaCombination.SEPARATE
        data["leave_one_out"] = data["leave_one_out"] or LeaveOneOut.AUTO
        options = {k: data.pop(k) for k in ("unit_size", "assignments", "theta", "order")}
        options = {k: v for k, v in options.items() if v is not None}  # none: the default
        external, no_external = data.pop("external"), data.pop("no_external")
        if external or no_external:
            options["external"] = [] if no_external else external
        study = form_call(form, study_create, owner=request.user, options=options, **data)
        if study is not None:
            messages.success(request, "Study started.")
            return redirect("study-detail", study_id=study.pk)
    context = {"form": form, "studies": studies_of(user=request.user)}
    return render(request, "scoring/study/list.html", context)


@login_required
def study_detail(request: AuthenticatedRequest, study_id: int) -> HttpResponse:
    study = study_get_managed(user=request.user, pk=study_id)
    context = {
        "study": study,
        "criteria_tables": study_criteria_tables(study=study),
        "system_levels": study_system_levels(study=study),
        "segment_levels": study_segment_levels(study=study),
        "plots": study_plots(study=study),
        "unit_size": study_unit_size(study=study),
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
