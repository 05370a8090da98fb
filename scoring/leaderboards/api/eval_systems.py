"""REST API: copy a leaderboard's finished submissions into evaluated systems of its dataset, so
that people can judge their outputs (an output campaign) and a study can correlate them."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.datasets.selectors import dataset_can_edit
from annotate.judgments.models import EvalSystem
from core.api import id_list_field, validated_input
from scoring.leaderboards.selectors.leaderboards import leaderboard_get_visible
from scoring.leaderboards.selectors.submissions import submissions_finished_by_id
from scoring.leaderboards.services.eval_systems import eval_systems_from_submissions


class EvalSystemsInputSerializer(serializers.Serializer):
    submissions = id_list_field(
        most=100, help_text="Ids of finished submissions of this leaderboard."
    )


class EvalSystemSerializer(serializers.ModelSerializer):
    outputs = serializers.SerializerMethodField()

    class Meta:
        model = EvalSystem
        fields = ["id", "name", "source", "source_ref", "outputs"]

    def get_outputs(self, system: EvalSystem) -> int:
        return system.outputs.count()


class LeaderboardEvalSystemsApi(APIView):
    @extend_schema(
        request=EvalSystemsInputSerializer,
        responses={
            201: EvalSystemSerializer(many=True),
            400: OpenApiResponse(description="Not finished submissions of this leaderboard"),
            403: OpenApiResponse(description="Not the dataset's owner"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        """Copy finished submissions into evaluated systems of the dataset (owner)"""
        board = leaderboard_get_visible(user=request.user, slug=slug)
        if not dataset_can_edit(user=request.user, dataset=board.release.dataset):
            raise PermissionDenied("Only the dataset's owner adds evaluated systems.")
        fields = validated_input(EvalSystemsInputSerializer, request)
        wanted = list(dict.fromkeys(fields["submissions"]))  # in the asked order
        found = submissions_finished_by_id(leaderboard=board, ids=wanted)
        if missing := [pk for pk in wanted if pk not in found]:
            raise ValidationError({"submissions": [f"No finished submission {missing} here."]})
        systems = eval_systems_from_submissions(submissions=[found[pk] for pk in wanted])
        body = EvalSystemSerializer(systems, many=True).data
        return Response(body, status=status.HTTP_201_CREATED)
