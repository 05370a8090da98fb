"""REST API: start a human evaluation of a leaderboard's submissions in one step (evaluated
systems and an output rating campaign on them)."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.rating.api.campaigns import CampaignSerializer
from annotate.rating.models import Mode
from core.api import id_list_field, validated_input
from scoring.leaderboards.selectors.leaderboards import leaderboard_get_managed
from scoring.leaderboards.selectors.submissions import submissions_finished_by_id
from scoring.leaderboards.services.human_evaluation import human_evaluation_create


class HumanEvaluationInputSerializer(serializers.Serializer):
    submissions = id_list_field(
        most=50,
        help_text="Ids of finished submissions of this leaderboard (two or more for pairwise).",
    )
    mode = serializers.ChoiceField(
        choices=Mode.choices,
        default=Mode.LIKERT,
        help_text="likert: each output on the scale; pairwise: every pair side by side.",
    )
    ratings_per_unit = serializers.IntegerField(
        min_value=1, max_value=50, default=3, help_text="Ratings wanted per output or pair."
    )
    name = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        default="",
        help_text="The campaign's name; default: Human evaluation: <leaderboard>.",
    )


class LeaderboardHumanEvaluationApi(APIView):
    @extend_schema(
        request=HumanEvaluationInputSerializer,
        responses={
            201: CampaignSerializer,
            400: OpenApiResponse(
                description="Not finished submissions of this board, too few for pairwise, or "
                "outputs that are hidden references (named in `submissions`)"
            ),
            403: OpenApiResponse(description="Not the leaderboard's owner"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        """Rate chosen submissions' outputs by people: an output campaign (owner)"""
        refusal = "Only the leaderboard's owner starts a human evaluation of it."
        board = leaderboard_get_managed(user=request.user, slug=slug, refusal=refusal)
        fields = validated_input(HumanEvaluationInputSerializer, request)
        wanted = list(dict.fromkeys(fields.pop("submissions")))  # in the asked order
        found = submissions_finished_by_id(leaderboard=board, ids=wanted)
        if missing := [pk for pk in wanted if pk not in found]:
            raise ValidationError({"submissions": [f"No finished submission {missing} here."]})
        campaign = human_evaluation_create(
            leaderboard=board,
            user=cast(User, request.user),
            submissions=[found[pk] for pk in wanted],
            **fields,
        )
        body = CampaignSerializer(campaign, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)
