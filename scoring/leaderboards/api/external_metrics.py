"""REST API of metrics computed elsewhere on a leaderboard: its owner uploads their
per-response scores (one row per submission × item), lists and removes them. The reading,
refusals and answers are the judgment sets' (`annotate.judgments.metrics_api`)."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.judgments.metrics_api import (
    ExternalMetricOutputSerializer,
    MetricScoresInputSerializer,
    metric_scores_upload_response,
)
from annotate.judgments.serializers import JudgmentRejectedSerializer
from scoring.leaderboards.selectors.external_metrics import (
    leaderboard_metric_get_managed,
    leaderboard_metric_links,
)
from scoring.leaderboards.selectors.leaderboards import leaderboard_get_managed
from scoring.leaderboards.services.external_metrics import (
    REFUSAL,
    leaderboard_metric_delete,
    leaderboard_metrics_import,
)

NOT_OWNER = OpenApiResponse(description="Not the leaderboard's owner (or not signed in)")
NO_BOARD = OpenApiResponse(description="No such leaderboard that you may see")


class LeaderboardMetricsApi(APIView):
    @extend_schema(
        responses={200: ExternalMetricOutputSerializer(many=True), 403: NOT_OWNER, 404: NO_BOARD}
    )
    def get(self, request: Request, slug: str) -> Response:
        """The metrics computed elsewhere whose scores the board's owner uploaded (owner)"""
        board = leaderboard_get_managed(user=request.user, slug=slug, refusal=REFUSAL)
        metrics = [link.metric for link in leaderboard_metric_links(leaderboard=board)]
        return Response(ExternalMetricOutputSerializer(metrics, many=True).data)

    @extend_schema(
        request={"multipart/form-data": MetricScoresInputSerializer},
        responses={
            201: ExternalMetricOutputSerializer(many=True),
            400: OpenApiResponse(JudgmentRejectedSerializer, description="Nothing written: "
                                 "each problem names its line and column"),
            403: NOT_OWNER,
            404: NO_BOARD,
        },
    )  # fmt: skip
    def post(self, request: Request, slug: str) -> Response:
        """Upload per-response scores of metrics computed elsewhere (owner)

        One row per submission × item: the item's id (an item of the board's split), the
        system — the submission's id, as in its page's address /leaderboards/submissions/<id>/
        and the API's `id` ("#12" reads as 12) — then one column per metric. A study of an
        output campaign on the board's submissions meta-evaluates them beside the built-in
        metrics. Any bad cell, unknown submission or item refuses the file (nothing written),
        naming its line and column."""
        board = leaderboard_get_managed(user=request.user, slug=slug, refusal=REFUSAL)
        return metric_scores_upload_response(request, leaderboard_metrics_import, leaderboard=board)


class LeaderboardMetricDetailApi(APIView):
    @extend_schema(
        responses={
            204: OpenApiResponse(description="Removed, with its scores"),
            403: NOT_OWNER,
            404: OpenApiResponse(description="No such leaderboard or uploaded metric"),
        }
    )
    def delete(self, request: Request, slug: str, metric_id: int) -> Response:
        """Remove an uploaded metric and its scores (owner)"""
        link = leaderboard_metric_get_managed(
            user=request.user, slug=slug, metric_id=metric_id, refusal=REFUSAL
        )
        leaderboard_metric_delete(link=link, user=cast(User, request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)
