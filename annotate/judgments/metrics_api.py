"""REST API of metrics computed elsewhere: upload their per-response scores to a judgment set
(multipart) and list the set's (the admin removes one)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.judgments.columns import mapping_from_json
from annotate.judgments.forms import names_list
from annotate.judgments.models import ExternalMetric
from annotate.judgments.selectors import external_metrics_of, judgment_set_get_managed
from annotate.judgments.serializers import JudgmentRejectedSerializer
from annotate.judgments.services.metrics import MetricScoresRejected, external_metrics_import
from core.api import problems_response


class MetricScoresInputSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="item id, system, then one column of scores a metric")
    metrics = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=2000,
        help_text="The metric columns, comma-separated (empty: every column of numbers not "
        "otherwise roled).",
    )
    lower_is_better = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="Comma-separated names."
    )
    description = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="How they were computed."
    )
    columns = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text='Roles of columns the guess missed, e.g. {"item": "seg_id", "system": "sys"}.',
    )


class ExternalMetricOutputSerializer(serializers.ModelSerializer):
    display = serializers.CharField(source="__str__", read_only=True)  # "external: <name>"

    class Meta:
        model = ExternalMetric
        fields = ["id", "name", "display", "description", "higher_is_better", "report"]
        fields += ["created_at"]


def _refused(exc: ValidationError) -> Response:
    if isinstance(exc, MetricScoresRejected):
        detail = "No metric scores were imported; nothing was written."
        return problems_response(detail, [p.as_dict() for p in exc.problems])
    return problems_response(" ".join(exc.messages), [])


def metric_scores_upload_response(
    request: Request, upload: Callable[..., list[ExternalMetric]], **holder: Any
) -> Response:
    """The POST of every holder of uploaded metrics (a judgment set, a leaderboard): read the
    form, refuse a file over the import limit unread, call `upload(**holder, …)`; 201 with the
    metrics, or 400 with every problem by line and column."""
    data = MetricScoresInputSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    fields = data.validated_data
    file = fields["file"]
    if file.size > settings.IMPORT_MAX_BYTES:
        limit = settings.IMPORT_MAX_BYTES // (1024 * 1024)
        return problems_response(f"file: the file is larger than {limit} MB.", [])
    try:
        created = upload(
            **holder,
            user=cast(User, request.user),
            name=str(file.name or "scores")[-100:],
            data=file.read(),
            metrics=names_list(fields.get("metrics", "")) or None,
            lower_is_better=names_list(fields.get("lower_is_better", "")),
            description=fields.get("description", ""),
            columns=mapping_from_json(fields["columns"]) if fields.get("columns") else None,
        )
    except ValidationError as exc:
        return _refused(exc)
    body = ExternalMetricOutputSerializer(created, many=True).data
    return Response(body, status=status.HTTP_201_CREATED)


class JudgmentSetMetricsApi(APIView):
    @extend_schema(responses={200: ExternalMetricOutputSerializer(many=True)})
    def get(self, request: Request, judgment_set_id: int) -> Response:
        """The metrics computed elsewhere whose scores the set holds"""
        judgment_set = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
        metrics = external_metrics_of(judgment_set=judgment_set)
        return Response(ExternalMetricOutputSerializer(metrics, many=True).data)

    @extend_schema(
        request={"multipart/form-data": MetricScoresInputSerializer},
        responses={
            201: ExternalMetricOutputSerializer(many=True),
            400: OpenApiResponse(JudgmentRejectedSerializer, description="Nothing written: "
                                 "each problem names its line and column"),
            404: OpenApiResponse(description="No such set of judgments that you manage"),
        },
    )  # fmt: skip
    def post(self, request: Request, judgment_set_id: int) -> Response:
        """Upload per-response scores of metrics computed elsewhere

        One row per system × item: the item's id, the system, then one column per metric. A
        study of the set meta-evaluates them beside the built-in metrics. A cell that is not a
        finite number refuses the file (nothing written), naming its line and column; rows of
        systems or items the set did not judge are skipped with a warning."""
        judgment_set = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
        return metric_scores_upload_response(
            request, external_metrics_import, judgment_set=judgment_set
        )
