"""REST API of output campaigns: the owner creates one and reads its progress; raters join by
token, lease the next output(s) and answer. Raters see only their own work."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.models import EvalSystem, OutputCampaign, OutputCampaignMode, SplitName
from annotate.selectors.datasets import dataset_can_edit, dataset_get_visible
from annotate.selectors.human_eval import (
    eval_systems,
    output_campaign_get_by_token,
    output_campaign_get_for_rater,
    output_campaign_get_managed,
    output_campaign_progress,
    output_campaigns_of_dataset,
    output_rater_progress,
    output_rating_display,
)
from annotate.services.human_eval.campaigns import (
    output_campaign_create,
    output_campaign_join,
    output_rating_next,
    output_rating_skip,
    output_rating_submit,
)


class OutputCampaignOutputSerializer(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="slug", read_only=True)  # type: ignore[var-annotated]
    systems = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)  # type: ignore[var-annotated]

    class Meta:
        model = OutputCampaign
        fields = [
            "id",
            "dataset",
            "name",
            "mode",
            "split",
            "systems",
            "is_open",
            "instructions",
            "scale_min",
            "scale_max",
            "ratings_per_unit",
            "created_at",
        ]


class OutputCampaignOwnerSerializer(OutputCampaignOutputSerializer):
    class Meta(OutputCampaignOutputSerializer.Meta):
        fields = [*OutputCampaignOutputSerializer.Meta.fields, "token"]


class OutputCampaignCreateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    mode = serializers.ChoiceField(choices=OutputCampaignMode.choices)
    split = serializers.ChoiceField(choices=SplitName.choices, default=SplitName.TEST)
    systems = serializers.SlugRelatedField(
        slug_field="name", many=True, queryset=EvalSystem.objects.none()
    )
    ratings_per_unit = serializers.IntegerField(min_value=1, max_value=50, default=3)
    instructions = serializers.CharField(required=False, allow_blank=True, default="")

    def __init__(self, *args, systems: Any = None, **kwargs):
        super().__init__(*args, **kwargs)
        if systems is not None:  # None: the schema generator's instance
            field: Any = self.fields["systems"]
            field.child_relation.queryset = systems


class OutputCampaignJoinInputSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=32)


class OutputLeaseSerializer(serializers.Serializer):
    rating = serializers.IntegerField(help_text="Answer with POST …/ratings/<rating>/.")
    turns = serializers.ListField(
        child=serializers.CharField(), source="context", help_text="Earlier turns, oldest first."
    )
    message = serializers.CharField()
    outputs = serializers.ListField(
        child=serializers.CharField(), help_text="One (absolute), or two shown as A then B."
    )
    scale = serializers.ListField(child=serializers.IntegerField())
    lease_expires_at = serializers.DateTimeField()


class OutputAnswerInputSerializer(serializers.Serializer):
    score = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Likert score, or pairwise 1 = A much better … 5 = B much better; "
        "null skips the item.",
    )


class OutputAnswerSerializer(serializers.Serializer):
    rating = serializers.IntegerField(source="pk")
    status = serializers.CharField()
    score = serializers.IntegerField(allow_null=True)


class OutputRaterProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    campaign_done = serializers.IntegerField()
    campaign_total = serializers.IntegerField()


class OutputRaterRowSerializer(serializers.Serializer):
    rater = serializers.CharField()
    done = serializers.IntegerField()
    qc_status = serializers.CharField()
    qc_reasons = serializers.ListField(child=serializers.CharField())


class OutputCampaignProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    slots = serializers.IntegerField()
    raters = OutputRaterRowSerializer(many=True)


def call(*args: Any, **kwargs: Any) -> Any:
    return call(*args, **kwargs)


class OutputCampaignListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OutputCampaignOwnerSerializer(many=True), summary="Your campaigns")
    def get(self, request: Request, slug: str) -> Response:
        dataset = dataset_get_visible(user=request.user, slug=slug)
        mine = output_campaigns_of_dataset(user=cast(User, request.user), dataset=dataset)
        return Response(OutputCampaignOwnerSerializer(mine, many=True).data)

    @extend_schema(
        request=OutputCampaignCreateInputSerializer,
        responses={201: OutputCampaignOwnerSerializer, 400: OpenApiResponse(description="")},
        summary="Start an absolute or pairwise campaign over evaluated systems",
    )
    def post(self, request: Request, slug: str) -> Response:
        dataset = dataset_get_visible(user=request.user, slug=slug)
        if not dataset_can_edit(user=request.user, dataset=dataset):
            raise PermissionDenied("Only the owner can start campaigns on this dataset.")
        data = OutputCampaignCreateInputSerializer(
            data=request.data, systems=eval_systems(dataset=dataset)
        )
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        campaign = output_campaign_create(
            owner=cast(User, request.user),
            dataset=dataset,
            systems=list(fields.pop("systems")),
            **fields,
        )
        body = OutputCampaignOwnerSerializer(campaign).data
        return Response(body, status=status.HTTP_201_CREATED)


class OutputCampaignJoinApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=OutputCampaignJoinInputSerializer,
        responses={200: OutputCampaignOutputSerializer, 404: OpenApiResponse(description="")},
        summary="Join an output campaign with the token of its link",
    )
    def post(self, request: Request) -> Response:
        data = OutputCampaignJoinInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = output_campaign_get_by_token(token=data.validated_data["token"])
        output_campaign_join(campaign=campaign, rater=cast(User, request.user))
        return Response(OutputCampaignOutputSerializer(campaign).data)


class OutputCampaignNextApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={200: OutputLeaseSerializer, 204: OpenApiResponse(description="All done")},
        summary="Lease the next output (or pair) to rate, or your current lease",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = output_campaign_get_for_rater(user=request.user, pk=campaign_id)
        rating = output_rating_next(campaign=campaign, rater=cast(User, request.user))
        if rating is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        shown = output_rating_display(rating=rating)
        body = {
            **shown,
            "rating": rating.pk,
            "scale": campaign.scale,
            "lease_expires_at": rating.lease_expires_at,
        }
        return Response(OutputLeaseSerializer(body).data)


class OutputRatingAnswerApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=OutputAnswerInputSerializer,
        responses={200: OutputAnswerSerializer, 400: OpenApiResponse(description="")},
        summary="Answer (or skip) your leased output",
    )
    def post(self, request: Request, campaign_id: int, rating_id: int) -> Response:
        output_campaign_get_for_rater(user=request.user, pk=campaign_id)
        data = OutputAnswerInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        score = data.validated_data["score"]
        if score is None:
            rating = output_rating_skip(rating_id=rating_id, rater=cast(User, request.user))
        else:
            rating = output_rating_submit(
                rating_id=rating_id, rater=cast(User, request.user), score=score
            )
        return Response(OutputAnswerSerializer(rating).data)


class OutputCampaignProgressApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: OutputCampaignProgressSerializer, 404: OpenApiResponse(description="")},
        summary="The owner's view: ratings done, and each rater's count and QC verdict",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = output_campaign_get_managed(user=request.user, pk=campaign_id)
        return Response(
            OutputCampaignProgressSerializer(output_campaign_progress(campaign=campaign)).data
        )


class OutputRaterProgressApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: OutputRaterProgressSerializer, 404: OpenApiResponse(description="")},
        summary="A rater's own progress",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = output_campaign_get_for_rater(user=request.user, pk=campaign_id)
        progress = output_rater_progress(campaign=campaign, rater=cast(User, request.user))
        return Response(OutputRaterProgressSerializer(progress).data)
