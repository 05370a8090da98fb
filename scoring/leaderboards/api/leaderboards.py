"""REST API of leaderboards: list, open one, its table, a comparison, exports."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.accounts.selectors import user_is_researcher
from annotate.releases.models import Release
from core.api import page_response, paginated, validated_input
from scoring.leaderboards.api.serializers import (
    LeaderboardComparisonSerializer,
    LeaderboardCreateSerializer,
    LeaderboardDetailSerializer,
    LeaderboardSettingsSerializer,
    LeaderboardSummarySerializer,
)
from scoring.leaderboards.exports import payload_csv, table_payload
from scoring.leaderboards.selectors.compare import compare_submissions, comparison_pair
from scoring.leaderboards.selectors.leaderboard_table import leaderboard_table
from scoring.leaderboards.selectors.leaderboards import (
    leaderboard_get_visible,
    leaderboards_visible,
    references_visible,
    release_named,
)
from scoring.leaderboards.services.leaderboards import leaderboard_create, leaderboard_update


def _release_named(*, user: User, name: str) -> Release:
    found = release_named(user=user, name=name)
    if found is None:
        raise ValidationError({"release": [f"No release {name!r}."]})
    return found


class LeaderboardListApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=paginated(LeaderboardSummarySerializer))
    def get(self, request: Request) -> Response:
        """Leaderboards"""
        boards: QuerySet = leaderboards_visible(user=request.user)
        return page_response(request, boards, LeaderboardSummarySerializer)

    @extend_schema(
        request=LeaderboardCreateSerializer, responses={201: LeaderboardSummarySerializer}
    )
    def post(self, request: Request) -> Response:
        """Open a leaderboard on a published release of your dataset"""
        user = cast(User, request.user)
        if not user_is_researcher(user):
            raise PermissionDenied("Only researchers open leaderboards.")
        fields: dict[str, Any] = validated_input(LeaderboardCreateSerializer, request)
        fields["release"] = _release_named(user=user, name=fields["release"])
        board = leaderboard_create(owner=user, **fields)
        return Response(LeaderboardSummarySerializer(board).data, status=status.HTTP_201_CREATED)


def _payload(request: Request, slug: str) -> dict:
    board = leaderboard_get_visible(user=request.user, slug=slug)
    table = leaderboard_table(leaderboard=board, user=request.user)
    visible = references_visible(user=request.user, leaderboard=board)
    return table_payload(table, references_visible=visible)


class LeaderboardDetailApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=LeaderboardDetailSerializer)
    def get(self, request: Request, slug: str) -> Response:
        """A leaderboard: configuration, signature, rows with intervals and rank groups"""
        return Response(_payload(request, slug))

    @extend_schema(request=LeaderboardSettingsSerializer, responses=LeaderboardSummarySerializer)
    def patch(self, request: Request, slug: str) -> Response:
        """Change the owner's settings: quotas, upload size limit, picks per team, …"""
        board = leaderboard_get_visible(user=request.user, slug=slug)
        fields = validated_input(
            LeaderboardSettingsSerializer, request, answer=LeaderboardSummarySerializer(board)
        )
        board = leaderboard_update(leaderboard=board, user=cast(User, request.user), **fields)
        return Response(LeaderboardSummarySerializer(board).data)


class CsvRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None):
        if not isinstance(data, dict) or "rows" not in data:  # an error: plain text
            return str(data.get("detail", data) if isinstance(data, dict) else data)
        return payload_csv(data)


class LeaderboardExportApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    renderer_classes = [JSONRenderer, CsvRenderer]

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=["json", "csv"], description="Or a suffix.")
        ],
        responses={
            (200, "application/json"): LeaderboardDetailSerializer,
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="One line a row"),
        },
    )
    def get(self, request: Request, slug: str, format: str | None = None) -> Response:
        """Export a leaderboard as CSV or JSON"""
        payload = _payload(request, slug)
        filename = f"{slug}.{request.accepted_renderer.format}"
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        return Response(payload, headers=headers)


class LeaderboardCompareApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        parameters=[
            OpenApiParameter("a", int, description="Submission A (default: the best entry)."),
            OpenApiParameter("b", int, description="Submission B (default: the best baseline)."),
        ],
        responses={200: LeaderboardComparisonSerializer, 404: OpenApiResponse(description="")},
    )
    def get(self, request: Request, slug: str) -> Response:
        """The board's significance answer for A and B, and each metric's paired bootstrap"""
        board = leaderboard_get_visible(user=request.user, slug=slug)
        a, b = comparison_pair(
            leaderboard=board,
            user=request.user,
            a_id=request.query_params.get("a"),
            b_id=request.query_params.get("b"),
        )
        if a is None or b is None or a == b:
            raise NotFound("Two different scored submissions are needed.")
        comparison = compare_submissions(leaderboard=board, user=request.user, a=a, b=b)
        body = {"a": a, "b": b, "metrics": comparison.metrics, "answer": comparison.answer}
        return Response(LeaderboardComparisonSerializer(body).data)
