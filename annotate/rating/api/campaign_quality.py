"""REST API for the owner's view of a campaign: quality control, agreement, weights, export."""

from __future__ import annotations

import json
from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.rating.models import Weight
from annotate.rating.selectors.agreement import campaign_agreement
from annotate.rating.selectors.campaigns import campaign_get_managed
from annotate.rating.selectors.dashboard import campaign_weights, raters_overview
from annotate.rating.selectors.ratings_export import ratings_csv_lines, ratings_jsonl_lines
from annotate.rating.selectors.results import campaign_results
from core.api import page_response, paginated


class _ExportRenderer(BaseRenderer):
    """Lets `?format=csv|jsonl` and the Accept header choose the export; the rows themselves are
    streamed by the view. Errors (404, 403) still come out as JSON text."""

    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        return json.dumps(data).encode()


class CsvRenderer(_ExportRenderer):
    media_type = "text/csv"
    format = "csv"


class JsonLinesRenderer(_ExportRenderer):
    media_type = "application/jsonl"
    format = "jsonl"


class CampaignRatingsExportApi(APIView):
    renderer_classes = [CsvRenderer, JsonLinesRenderer]

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=["csv", "jsonl"], description="Default csv.")
        ],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV"),
            (200, "application/jsonl"): OpenApiResponse(OpenApiTypes.STR, description="JSONL"),
            404: OpenApiResponse(description="No such campaign, or not yours."),
        },
    )
    def get(self, request: Request, campaign_id: int) -> StreamingHttpResponse:
        """Export every answered rating of a campaign (owner)

        One row per answer (leases still running are left out): pseudonymous rater id, crowd id
        and whether their completion code is valid, the rater's QC status, item external id,
        reference id (campaigns on references) or systems A and B and whether A was on the left
        (campaigns on outputs), kind (normal, repeat, bad_reference), the text shown (references
        and degraded controls), status, score, preference for A (pairwise, −2 … +2), flag,
        whether it counts, start and finish times (UTC) and seconds. CSV with a header, or JSON
        Lines."""
        campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
        fmt = request.accepted_renderer.format
        lines = (ratings_jsonl_lines if fmt == "jsonl" else ratings_csv_lines)(campaign=campaign)
        response = StreamingHttpResponse(
            lines, content_type=f"{request.accepted_media_type}; charset=utf-8"
        )
        filename = f"campaign-{campaign.pk}-ratings.{fmt}"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


class AgreementSerializer(serializers.Serializer):
    alpha_interval = serializers.FloatField(allow_null=True)
    alpha_ordinal = serializers.FloatField(allow_null=True)
    units = serializers.IntegerField(help_text="Units (references, outputs, pairs) rated twice+.")
    ratings = serializers.IntegerField(help_text="Counted ratings.")
    raters = serializers.IntegerField()


class RaterQualitySerializer(serializers.Serializer):
    rater = serializers.CharField(source="pseudonym", help_text="Pseudonym, as in the export.")
    username = serializers.CharField(source="membership.rater.username")
    crowd_id = serializers.CharField(source="membership.crowd_id")
    qc_status = serializers.CharField(source="membership.qc_status")
    qc_reasons = serializers.ListField(
        child=serializers.CharField(), source="membership.qc_reasons"
    )
    qc_details = serializers.DictField(source="membership.qc_details")
    qc_checked_at = serializers.DateTimeField(source="membership.qc_checked_at", allow_null=True)
    answered = serializers.IntegerField()
    counted = serializers.IntegerField()
    consensus_rho = serializers.FloatField(
        allow_null=True, help_text="Spearman's rho against the mean of the other raters."
    )
    consensus_n = serializers.IntegerField()
    completion_code_valid = serializers.BooleanField(allow_null=True)


class QualitySerializer(serializers.Serializer):
    agreement = AgreementSerializer()
    raters = RaterQualitySerializer(many=True)


class CampaignQualityApi(APIView):
    @extend_schema(
        responses={200: QualitySerializer, 404: OpenApiResponse(description="Not yours.")}
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        """Raters' quality control and the campaign's agreement (owner)"""
        campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
        agreement = campaign_agreement(campaign=campaign)
        raters = raters_overview(campaign=campaign, agreement=agreement)
        return Response(QualitySerializer({"agreement": agreement, "raters": raters}).data)


class WeightSerializer(serializers.ModelSerializer):
    item_external_id = serializers.CharField(source="reference.item.external_id")
    text = serializers.CharField(source="reference.text")

    class Meta:
        model = Weight
        fields = [
            "reference_id", "item_external_id", "text", "n", "mean", "sd", "weight",
            "ci_low", "ci_high", "z_weight", "updated_at",
        ]  # fmt: skip


class CampaignWeightsApi(APIView):
    @extend_schema(responses=paginated(WeightSerializer))
    def get(self, request: Request, campaign_id: int) -> Response:
        """Weights of a campaign's references, with n, SD, 95% interval, z variant (owner)"""
        campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
        return page_response(request, campaign_weights(campaign=campaign), WeightSerializer)


class ResultRowSerializer(serializers.Serializer):
    system = serializers.CharField()
    versus = serializers.CharField(allow_null=True, help_text="Pairwise: system B.")
    items = serializers.IntegerField(help_text="Items with a counted rating.")
    mean = serializers.FloatField(
        help_text="Likert: mean score; pairwise: mean preference for `system` (−2 … +2)."
    )
    ci_low = serializers.FloatField(allow_null=True, help_text="95% t-interval over items.")
    ci_high = serializers.FloatField(allow_null=True)
    wins = serializers.IntegerField(allow_null=True)
    ties = serializers.IntegerField(allow_null=True)
    losses = serializers.IntegerField(allow_null=True)


class CampaignResultsApi(APIView):
    @extend_schema(
        responses={200: ResultRowSerializer(many=True), 404: OpenApiResponse(description="")}
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        """Results of a campaign on outputs: per system or per pair (owner)

        Empty for a campaign on references, whose findings are its weights."""
        campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
        rows = [] if campaign.rates_references else campaign_results(campaign=campaign)
        return Response(ResultRowSerializer(rows, many=True).data)
