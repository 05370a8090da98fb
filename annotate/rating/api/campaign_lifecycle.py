"""REST API of a campaign's lifecycle (owner and staff): open or close it, delete it."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.rating.api.campaigns import CampaignSerializer
from annotate.rating.selectors.campaigns import campaign_get_managed
from annotate.rating.services.lifecycle import TRANSITIONS, campaign_delete, campaign_transition
from core.api import confirmation_field, deletion_refused, validated_input


class TransitionSerializer(serializers.Serializer):
    action = serializers.ChoiceField(
        choices=list(TRANSITIONS),
        help_text="open: a draft, or a closed campaign again; close: no new leases.",
    )


class DeleteSerializer(serializers.Serializer):
    confirm = confirmation_field(
        "The campaign's name", because="its ratings and weights go for good"
    )


class CampaignTransitionApi(APIView):
    @extend_schema(request=TransitionSerializer, responses={200: CampaignSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        """Open or close a campaign you run (complete follows from the ratings)"""
        campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
        fields = validated_input(TransitionSerializer, request)
        campaign = campaign_transition(campaign=campaign, action=fields["action"])
        return Response(CampaignSerializer(campaign, context={"request": request}).data)


class CampaignDeleteApi(APIView):
    @extend_schema(
        request=DeleteSerializer,
        responses={
            204: OpenApiResponse(description="Deleted"),
            409: deletion_refused(
                "Something keeps the campaign (a study reading its ratings or weights)"
            ),
        },
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        """Delete a campaign you run, with its ratings (confirm with its name)"""
        campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
        fields = validated_input(DeleteSerializer, request)
        campaign_delete(campaign=campaign, confirm=fields["confirm"])
        return Response(status=status.HTTP_204_NO_CONTENT)
