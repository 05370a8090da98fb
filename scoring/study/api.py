"""REST API of correlation studies: list and start, follow one, export the result."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

from django.contrib.auth.models import User
from django.db.models import Model
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.datasets.models import SplitName
from annotate.datasets.serializers import dataset_slug_field
from annotate.judgments.models import JudgmentSet
from annotate.rating.models import Campaign
from annotate.releases.models import Release
from core.api import name_list_field, page_response, paginated, validated_input
from core.runs.api import WaitingReasonField
from core.runs.models import RunState
from scoring.study.analysis.configs import (
    ASSIGNMENTS,
    BOOTSTRAP,
    ORDERS,
    SEEDS,
    SWEEP_POINTS,
    THETAS,
    UNIT_SIZES,
    StudyOptions,
)
from scoring.study.models import CorrelationStudy, CriteriaCombination, LeaveOneOut
from scoring.study.selectors import studies_of, study_choices, study_get_managed
from scoring.study.services import study_create, study_export_csv


class StudySummarySerializer(serializers.ModelSerializer):
    dataset = dataset_slug_field()
    release: serializers.StringRelatedField = serializers.StringRelatedField()
    state = serializers.ChoiceField(
        choices=RunState.choices,
        source="run.state",
        default=None,
        allow_null=True,
        read_only=True,
        help_text="Its run's state: queued, running, succeeded, failed or cancelled (null: none).",
    )
    status = serializers.ChoiceField(
        choices=RunState.choices,
        source="run.state",
        default=None,
        allow_null=True,
        read_only=True,
        help_text="Same as state.",
    )
    waiting_reason = WaitingReasonField(run="run")
    percent = serializers.IntegerField(source="run.percent", default=None, read_only=True)

    class Meta:
        model = CorrelationStudy
        fields = [
            "id",
            "name",
            "dataset",
            "weight_source",
            "release",
            "split",
            "state",
            "status",
            "waiting_reason",
            "percent",
            "created_at",
        ]


class StudyDetailSerializer(StudySummarySerializer):
    run = serializers.IntegerField(source="run_id", read_only=True, allow_null=True)
    message = serializers.CharField(source="run.message", default="", read_only=True)
    reason = serializers.CharField(source="run.reason", default="", read_only=True)
    judgment_set = serializers.IntegerField(source="judgment_set_id", allow_null=True)
    output_campaign = serializers.IntegerField(source="output_campaign_id", allow_null=True)
    weight_campaign = serializers.IntegerField(source="weight_campaign_id", allow_null=True)
    result = serializers.JSONField(
        read_only=True,
        help_text="Empty until the run succeeds; then `table` and `criteria` (Table 2 per "
        "criterion), `systems` (per criterion: systems, correlations over systems with "
        "pairwise accuracy, acc_eq and its ε, SPA, and `clusters` by PERM-BOTH), `segments` "
        "(per criterion: per-response correlations over all responses and item-grouped with "
        "intervals, item-grouped acc_eq, `clusters`; empty for pairwise human scores), "
        "`sweeps`, `notes`, `warnings`, `inputs`. Undefined values are null; every metric "
        "row names its `label` and `signature`.",
    )

    class Meta(StudySummarySerializer.Meta):
        fields = [
            *StudySummarySerializer.Meta.fields,
            "run",
            "message",
            "reason",
            "weight_campaign",
            "judgment_set",
            "output_campaign",
            "criteria",
            "combine",
            "excluded_systems",
            "leave_one_out",
            "pairs",
            "options",
            "result",
        ]


def _bounded(field: Callable[..., Any], bounds: tuple, **kwargs: Any) -> Any:
    low, high = bounds
    return field(min_value=low, max_value=high, **kwargs)


class StudyOptionsInputSerializer(serializers.Serializer):
    """The engine's options, bounded by what each means (`StudyOptions.problems`, which the
    service asks again for the page and the command)."""

    unit_size = _bounded(serializers.IntegerField, UNIT_SIZES, default=100)
    assignments = _bounded(serializers.IntegerField, ASSIGNMENTS, default=1000)
    bootstrap = _bounded(
        serializers.IntegerField,
        BOOTSTRAP,
        default=1000,
        help_text="Replicates of the item bootstrap behind every interval.",
    )
    theta = _bounded(serializers.FloatField, THETAS, default=0.6)
    order = _bounded(serializers.IntegerField, ORDERS, default=2)
    seed = _bounded(
        serializers.IntegerField,
        SEEDS,
        default=12345,
        help_text="The random seed of the assignments and the bootstrap (non-negative).",
    )
    metrics = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        max_length=SWEEP_POINTS,
        help_text="Registered metric names, as `dbleu list` prints them (none: every one); "
        "an unknown name is refused with the valid ones listed.",
    )
    external = serializers.ListField(
        child=serializers.CharField(max_length=100),
        required=False,
        allow_null=True,
        default=None,
        max_length=SWEEP_POINTS,
        help_text="Names of uploaded metrics to meta-evaluate beside the built-ins: the "
        "judgment set's, or, for an output campaign on a leaderboard's submissions, those the "
        "board's owner uploaded (absent or null: all of them; []: none).",
    )
    sweeps = serializers.BooleanField(default=True)
    thetas = serializers.ListField(
        child=_bounded(serializers.FloatField, THETAS),
        required=False,
        max_length=SWEEP_POINTS,
        help_text="Figure 2A's thresholds, each a reference weight (-1 … 1).",
    )
    unit_sizes = serializers.ListField(
        child=_bounded(serializers.IntegerField, UNIT_SIZES),
        required=False,
        max_length=SWEEP_POINTS,
    )

    def validate(self, attrs: dict) -> dict:
        problems = StudyOptions.from_dict(attrs).problems()
        if problems:  # by option: {"options": {"metrics": ["No metric 'x': choose from …"]}}
            raise serializers.ValidationError({name: [why] for name, why in problems.items()})
        return attrs


def _optional_own(model: type[Model], **kwargs: Any) -> Any:
    """An optional id of one of the caller's own `model` rows: the serializer's `__init__` sets
    the queryset they come from (none before, as for the schema generator)."""
    return serializers.PrimaryKeyRelatedField(
        queryset=model._default_manager.none(),
        required=False,
        allow_null=True,
        default=None,
        **kwargs,
    )


class StudyCreateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    release = _optional_own(
        Release,
        help_text="Weights of this frozen release (or give weight_campaign, or neither: +1).",
    )
    weight_campaign = _optional_own(
        Campaign, help_text="A campaign on references whose current weights are used."
    )
    split = serializers.ChoiceField(choices=SplitName.choices, default=SplitName.TEST)
    judgment_set = _optional_own(JudgmentSet)
    output_campaign = _optional_own(Campaign)
    criteria = name_list_field(
        most=20,
        longest=100,
        help_text="Criteria of the judgments; empty means the first. A wrong name is refused.",
    )
    combine = serializers.ChoiceField(
        choices=CriteriaCombination.choices, default=CriteriaCombination.SEPARATE
    )
    excluded_systems = name_list_field(most=500, longest=200)
    leave_one_out = serializers.ChoiceField(choices=LeaveOneOut.choices, default=LeaveOneOut.AUTO)
    pairs = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(), min_length=2, max_length=2),
        required=False,
        default=list,
        max_length=5000,
        help_text="[[system A, system B], …]; empty means every pair with human scores.",
    )
    options = StudyOptionsInputSerializer(required=False, default=dict)

    def __init__(self, *args, user: User | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if user is None:  # the schema generator's instance
            return
        # Only the caller's own datasets' objects resolve; others' ids read as "does not exist".
        for name, queryset in study_choices(user=user).items():
            field: Any = self.fields[name]
            field.queryset = queryset


class StudyListApi(APIView):
    @extend_schema(responses=paginated(StudySummarySerializer))
    def get(self, request: Request) -> Response:
        """Your studies"""
        studies = studies_of(user=cast(User, request.user))
        return page_response(request, studies, StudySummarySerializer)

    @extend_schema(
        request=StudyCreateInputSerializer,
        responses={201: StudyDetailSerializer, 400: OpenApiResponse(description="Invalid input")},
    )
    def post(self, request: Request) -> Response:
        """Start a correlation study of your human evaluation (a job with progress)"""
        user = cast(User, request.user)
        fields = validated_input(StudyCreateInputSerializer, request, user=user)
        options = {k: v for k, v in fields.pop("options").items() if v is not None}
        study = study_create(owner=user, options=options, **fields)
        return Response(StudyDetailSerializer(study).data, status=status.HTTP_201_CREATED)


class StudyDetailApi(APIView):
    @extend_schema(
        responses={200: StudyDetailSerializer, 404: OpenApiResponse(description="Not yours")}
    )
    def get(self, request: Request, study_id: int) -> Response:
        """A study's status, progress and (when finished) its result"""
        study = study_get_managed(user=request.user, pk=study_id)
        return Response(StudyDetailSerializer(study).data)


class StudyExportApi(APIView):
    @extend_schema(
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR,
                description="Table 2 per criterion; the system level with its meta-evaluation "
                "(system_metaeval rows); the segment level (segments rows); the sweeps",
            ),
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT),
        }
    )
    def get(self, request: Request, study_id: int, fmt: str) -> HttpResponse:
        """Export a study's result as CSV or JSON"""
        study = study_get_managed(user=request.user, pk=study_id)
        if fmt == "csv":
            response = HttpResponse(study_export_csv(study), content_type="text/csv; charset=utf-8")
        elif fmt == "json":
            body = {
                "study": study.pk,
                "name": study.name,
                "options": study.options,
                "result": study.result,
            }
            response = HttpResponse(
                json.dumps(body, indent=1), content_type="application/json; charset=utf-8"
            )
        else:
            raise NotFound("Unknown format: use csv or json.")
        response["Content-Disposition"] = f'attachment; filename="study-{study.pk}.{fmt}"'
        return response
