"""REST API of the rater's own work: the campaigns they joined, and the undo of their last
answer."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.rating.api.campaigns import NextSerializer
from annotate.rating.models import CampaignStatus, QCStatus
from annotate.rating.selectors.campaigns import rater_owns_rating
from annotate.rating.selectors.rater import JoinedCampaign, campaigns_of_rater
from annotate.rating.services.undo import rating_undo
from core.api import page_response, paginated


class JoinedCampaignSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="campaign.pk")
    name = serializers.CharField(source="campaign.name")
    dataset = serializers.CharField(source="campaign.dataset.slug")
    status = serializers.ChoiceField(choices=CampaignStatus.choices, source="campaign.status")
    joined_at = serializers.DateTimeField(source="membership.joined_at")
    answered = serializers.IntegerField(help_text="Your scores, skips and flags.")
    quota = serializers.IntegerField(
        allow_null=True, help_text="Your share, if you came from a crowd platform."
    )
    open_now = serializers.IntegerField(
        help_text="Items you could be given now: your current one included, within your share."
    )
    qc_status = serializers.ChoiceField(choices=QCStatus.choices, source="membership.qc_status")
    next_step = serializers.ChoiceField(
        choices=["continue", "done", "closed"],
        help_text="continue: rate at rate_url; done: nothing left for you; closed: no answers.",
    )
    rate_url = serializers.SerializerMethodField()
    completion_code = serializers.CharField(
        allow_null=True, help_text="Once you are done and passed quality control."
    )

    def get_rate_url(self, row: JoinedCampaign) -> str:
        path = reverse("campaign-rate", args=[row.campaign.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path


class MyCampaignsApi(APIView):
    @extend_schema(responses=paginated(JoinedCampaignSerializer))
    def get(self, request: Request) -> Response:
        """Campaigns you joined as a rater: your progress and what comes next"""
        rows = campaigns_of_rater(rater=cast(User, request.user))
        return page_response(request, rows, JoinedCampaignSerializer, context={"request": request})


class RatingUndoApi(APIView):
    @extend_schema(
        request=None,
        responses={
            200: NextSerializer,
            400: OpenApiResponse(description="Not your last answer, or too late to undo it"),
            404: OpenApiResponse(description="No such answer of yours"),
        },
    )
    def post(self, request: Request, rating_id: int) -> Response:
        """Take back your last answer; it is leased to you again to answer anew"""
        user = cast(User, request.user)
        if not rater_owns_rating(rater=user, rating_id=rating_id):
            return Response({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)
        rating = rating_undo(rating_id=rating_id, rater=user)
        return Response(NextSerializer(rating).data)
