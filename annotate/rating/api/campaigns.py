"""REST API of rating campaigns — on references or on outputs, one shape: create, join, next
item, answer, progress."""

from __future__ import annotations

from dataclasses import asdict
from typing import cast

from django.contrib.auth.models import User
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.datasets.models import SplitName
from annotate.datasets.selectors import dataset_get_editable, dataset_split_get
from annotate.datasets.serializers import dataset_slug_field
from annotate.judgments.selectors import eval_systems
from annotate.rating.choices import ASSIGNMENT_SETTINGS, CAMPAIGN_SETTINGS
from annotate.rating.models import Campaign, Flag, Mode, Subject
from annotate.rating.selectors.campaigns import (
    campaign_can_manage,
    campaign_get_by_token,
    campaign_get_for_rater,
    campaign_get_managed,
    campaign_progress,
    campaigns_of_user,
    rater_owns_rating,
    rater_progress,
)
from annotate.rating.selectors.lifecycle import (
    REASONS,
    NothingLeft,
    Reason,
    rater_nothing_left,
)
from annotate.rating.selectors.results import rating_display
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import (
    campaign_assignment_update,
    campaign_create,
    campaign_join,
)
from annotate.rating.services.lifecycle import campaign_actions
from annotate.rating.services.ratings import rating_pass, rating_submit
from core.api import name_list_field, page_response, paginated, validated_input


class CampaignSerializer(serializers.ModelSerializer):
    dataset = dataset_slug_field()
    split: serializers.SlugRelatedField = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True, help_text="Null: every split."
    )
    systems: serializers.SlugRelatedField = serializers.SlugRelatedField(
        slug_field="name", many=True, read_only=True, help_text="Outputs: the systems rated."
    )
    join_url = serializers.SerializerMethodField()
    actions = serializers.SerializerMethodField(
        help_text="The owner's moves from this status (POST …/transition/ with one of them)."
    )

    class Meta:
        model = Campaign
        fields = [
            "id",
            "name",
            "dataset",
            "split",
            "subject",
            "mode",
            "systems",
            "status",
            "status_changed_at",
            "actions",
            "instructions",
            "scale_min",
            "scale_max",
            "anchors",
            *CAMPAIGN_SETTINGS,
            "priorities_refreshed_at",
            "priorities_summary",
            "join_url",
            "created_at",
        ]
        read_only_fields = ["priorities_refreshed_at", "priorities_summary"]

    def get_join_url(self, campaign: Campaign) -> str | None:
        request = self.context.get("request")
        if request is None or not campaign_can_manage(user=request.user, campaign=campaign):
            return None  # the link lets anyone join: only its owner hands it out
        return request.build_absolute_uri(f"/r/{campaign.token}/")

    def get_actions(self, campaign: Campaign) -> list[str]:
        request = self.context.get("request")
        if request is None or not campaign_can_manage(user=request.user, campaign=campaign):
            return []
        return campaign_actions(campaign)


class CampaignCreateSerializer(serializers.ModelSerializer):
    dataset = serializers.SlugField(help_text="Slug of a dataset you own.")
    split = serializers.ChoiceField(
        choices=SplitName.choices,
        required=False,
        allow_null=True,
        help_text="Empty: every split (a campaign on outputs needs one).",
    )
    subject = serializers.ChoiceField(choices=Subject.choices, default=Subject.REFERENCES)
    mode = serializers.ChoiceField(
        choices=Mode.choices, default=Mode.LIKERT, help_text="Pairwise rates outputs only."
    )
    systems = name_list_field(
        most=50, longest=200, help_text="Outputs: names of the dataset's evaluated systems."
    )
    draft = serializers.BooleanField(
        default=False, help_text="Keep it a draft (nobody can join) until you open it."
    )

    class Meta:
        model = Campaign
        fields = [
            "dataset",
            "split",
            "subject",
            "mode",
            "systems",
            "draft",
            "name",
            "instructions",
            "anchors",
            *CAMPAIGN_SETTINGS,
        ]


class CampaignAssignmentSerializer(serializers.ModelSerializer):
    """What the owner may change while the campaign runs: how work is handed out, how much."""

    class Meta:
        model = Campaign
        fields = list(ASSIGNMENT_SETTINGS)
        extra_kwargs = {name: {"required": False} for name in fields}


class CampaignListApi(APIView):
    @extend_schema(responses=paginated(CampaignSerializer))
    def get(self, request: Request) -> Response:
        """Campaigns you run or rate in"""
        campaigns = campaigns_of_user(user=cast(User, request.user))
        return page_response(request, campaigns, CampaignSerializer, context={"request": request})

    @extend_schema(request=CampaignCreateSerializer, responses={201: CampaignSerializer})
    def post(self, request: Request) -> Response:
        """Start a rating campaign on a dataset you own"""
        fields = validated_input(CampaignCreateSerializer, request)
        dataset = dataset_get_editable(
            user=request.user,
            slug=fields.pop("dataset"),
            refusal="Only the dataset's owner can start a campaign on it.",
        )
        split_name = fields.pop("split", None)
        if split_name:
            fields["split"] = dataset_split_get(dataset=dataset, name=split_name)
        names = fields.pop("systems")
        systems = list(eval_systems(dataset=dataset).filter(name__in=names))
        unknown = sorted(set(names) - {system.name for system in systems})
        if unknown:
            raise serializers.ValidationError({"systems": f"No such system: {', '.join(unknown)}."})
        campaign = campaign_create(
            owner=cast(User, request.user), dataset=dataset, systems=systems, **fields
        )
        body = CampaignSerializer(campaign, context={"request": request}).data
        return Response(body, status=status.HTTP_201_CREATED)


class JoinSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="The token of the campaign's link /r/<token>/.")


class CampaignJoinApi(APIView):
    @extend_schema(request=JoinSerializer, responses=CampaignSerializer)
    def post(self, request: Request) -> Response:
        """Join as a rater"""
        fields = validated_input(JoinSerializer, request)
        campaign = campaign_get_by_token(token=fields["token"])
        campaign_join(campaign=campaign, rater=cast(User, request.user))
        return Response(CampaignSerializer(campaign, context={"request": request}).data)


class ItemSerializer(serializers.Serializer):
    id = serializers.CharField(source="external_id")
    context = serializers.ListField(child=serializers.CharField())  # type: ignore[assignment]
    message = serializers.CharField()


class ProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField(help_text="Items you have answered.")
    quota = serializers.IntegerField(allow_null=True, help_text="Your share, if you have one.")
    campaign_done = serializers.IntegerField()
    campaign_total = serializers.IntegerField()


class NextSerializer(serializers.Serializer):
    rating_id = serializers.IntegerField(source="pk")
    item = ItemSerializer(source="slot.item")
    texts = serializers.SerializerMethodField(
        help_text="What to rate: one text, or two shown as A (left) then B (right)."
    )
    lease_expires_at = serializers.DateTimeField()
    scale = serializers.ListField(child=serializers.IntegerField(), source="campaign.scale")
    anchors = serializers.ListField(
        child=serializers.CharField(),
        source="campaign.labels",
        help_text="Labels of the scale (pairwise: 1 = A much better … 5 = B much better).",
    )

    def get_texts(self, rating) -> list[str]:
        return rating_display(rating=rating).texts


class NothingLeftSerializer(serializers.Serializer):
    nothing_left = serializers.BooleanField(default=True)
    reason = serializers.ChoiceField(choices=list(REASONS))
    message = serializers.CharField()
    retry_at = serializers.DateTimeField(
        allow_null=True, help_text="When asking again may give an item (null: it will not)."
    )
    next_url = serializers.CharField(help_text="Where to go next: your campaigns.")


class CampaignNextApi(APIView):
    @extend_schema(
        request=None,
        responses={
            200: PolymorphicProxySerializer(
                component_name="NextOrNothingLeft",
                serializers=[NextSerializer, NothingLeftSerializer],
                resource_type_field_name=None,
            )
        },
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        """Your current item, or the next one (a lease that expires), or why none is left"""
        campaign = campaign_get_for_rater(user=request.user, campaign_id=campaign_id)
        rater = cast(User, request.user)
        rating = rating_next(campaign=campaign, rater=rater)
        why = rater_nothing_left(campaign=campaign, rater=rater) if rating is None else None
        if rating is None:
            # None only in a race (a slot freed since): a rater who asks again gets it.
            why = why or NothingLeft(Reason.WAITING, "Ask again for the next item.")
            body = {**asdict(why), "nothing_left": True, "next_url": reverse("account")}
            return Response(NothingLeftSerializer(body).data)
        return Response(NextSerializer(rating).data)


class CampaignProgressApi(APIView):
    @extend_schema(responses=ProgressSerializer)
    def get(self, request: Request, campaign_id: int) -> Response:
        """Your progress in a campaign you rate"""
        campaign = campaign_get_for_rater(user=request.user, campaign_id=campaign_id)
        progress = rater_progress(campaign=campaign, rater=cast(User, request.user))
        return Response(ProgressSerializer(progress).data)


class CampaignOverviewSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    leased = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.IntegerField()
    units = serializers.IntegerField(help_text="References, outputs or pairs to rate.")
    complete_units = serializers.IntegerField()
    raters = serializers.IntegerField()


class CampaignDetailApi(APIView):
    @extend_schema(responses=CampaignSerializer)
    def get(self, request: Request, campaign_id: int) -> Response:
        """A campaign you run, with its progress"""
        campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
        body = CampaignSerializer(campaign, context={"request": request}).data
        body["progress"] = CampaignOverviewSerializer(campaign_progress(campaign=campaign)).data
        return Response(body)

    @extend_schema(request=CampaignAssignmentSerializer, responses=CampaignSerializer)
    def patch(self, request: Request, campaign_id: int) -> Response:
        """Change a running campaign's assignment (uniform or adaptive) or rating budget"""
        campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
        fields = validated_input(
            CampaignAssignmentSerializer,
            request,
            partial=True,
            answer=CampaignSerializer(campaign, context={"request": request}),
        )
        campaign = campaign_assignment_update(
            campaign=campaign, user=cast(User, request.user), **fields
        )
        return Response(CampaignSerializer(campaign, context={"request": request}).data)


class AnswerSerializer(serializers.Serializer):
    score = serializers.IntegerField(required=False, help_text="A point of the campaign's scale.")
    skip = serializers.BooleanField(required=False, default=False)
    flag = serializers.ChoiceField(choices=Flag.choices, required=False)

    def validate(self, attrs: dict) -> dict:
        given = [attrs.get("score") is not None, bool(attrs.get("skip")), bool(attrs.get("flag"))]
        if sum(given) != 1:
            raise serializers.ValidationError("Send exactly one of score, skip or flag.")
        return attrs


class RatingAnswerApi(APIView):
    @extend_schema(
        request=AnswerSerializer, responses={200: OpenApiResponse(description="Recorded")}
    )
    def post(self, request: Request, rating_id: int) -> Response:
        """Answer your leased item: a score, a skip or a flag"""
        answer = validated_input(AnswerSerializer, request)
        user = cast(User, request.user)
        if not rater_owns_rating(rater=user, rating_id=rating_id):
            return Response({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)
        if answer.get("score") is not None:
            rating = rating_submit(rating_id=rating_id, rater=user, score=answer["score"])
        else:
            rating = rating_pass(rating_id=rating_id, rater=user, flag=answer.get("flag", ""))
        return Response({"rating_id": rating.pk, "status": rating.status, "score": rating.score})
