"""REST API of submissions: upload (all problems by line), list one's own, follow one."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.accounts.selectors import user_is_researcher
from core.api import page_response, paginated, problems_response, validated_input
from core.lines import file_lines
from core.runs.api import WaitingReasonField
from core.runs.models import RunState
from scoring.leaderboards.models import Listing, Score, Submission, SubmissionStatus
from scoring.leaderboards.selectors.leaderboards import leaderboard_get_visible
from scoring.leaderboards.selectors.submissions import submission_get_for_user, submissions_of_user
from scoring.leaderboards.services.standing import REASON_MAX, submission_change
from scoring.leaderboards.services.submissions import (
    submission_cancel,
    submission_create,
    upload_problems_as_dicts,
)
from scoring.leaderboards.submission_files import UploadRejected


class ScoreSerializer(serializers.ModelSerializer):
    class Meta:
        model = Score
        fields = ["metric", "score", "ci_low", "ci_high", "signature", "extras"]


STATE_HELP = (
    "Where its scoring is, in the words of every run (the scoring run's state): queued, "
    "running, succeeded, failed or cancelled."
)
STATUS_HELP = (
    "Deprecated: read `state`. The same but for one word kept for older clients: a scored "
    "submission is `finished` here and `succeeded` in `state`."
)


@extend_schema_serializer(deprecate_fields=["status"])
class SubmissionSerializer(serializers.ModelSerializer):
    team = serializers.CharField(source="team.name")
    leaderboard = serializers.CharField(source="leaderboard.slug")
    scores = ScoreSerializer(many=True)
    state = serializers.ChoiceField(choices=RunState.choices, read_only=True, help_text=STATE_HELP)
    status = serializers.ChoiceField(
        choices=SubmissionStatus.choices, read_only=True, help_text=STATUS_HELP
    )
    waiting_reason = WaitingReasonField(run="run")
    progress = serializers.IntegerField(read_only=True)
    run = serializers.IntegerField(source="run_id", read_only=True, allow_null=True)
    attempt = serializers.IntegerField(source="run.attempt", default=None, read_only=True)
    status_text = serializers.CharField(
        source="run.status_text",
        default="",
        read_only=True,
        help_text='What the scoring run is doing, e.g. "Waiting for a worker".',
    )
    started_at = serializers.DateTimeField(source="run.started_at", default=None, read_only=True)

    class Meta:
        model = Submission
        fields = [
            "id",
            "leaderboard",
            "team",
            "method",
            "description",
            "url",
            "format",
            "n_lines",
            "state",
            "status",
            "status_text",
            "waiting_reason",
            "progress",
            "run",
            "attempt",
            "error",
            "is_baseline",
            "is_public",
            "counts",
            "charged",
            "listing",
            "listing_reason",
            "listing_changed_at",
            "submitted_at",
            "started_at",
            "finished_at",
            "scores",
        ]
        extra_kwargs = {
            "listing_reason": {"help_text": "Why it was hidden or withdrawn (its team reads it)."}
        }


class SubmissionUploadSerializer(serializers.Serializer):
    file = serializers.FileField()
    method = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    url = serializers.URLField(required=False, allow_blank=True, default="")
    team = serializers.CharField(required=False, allow_blank=True, default="")
    format = serializers.ChoiceField(choices=["", "text", "jsonl"], required=False, default="")
    is_public = serializers.BooleanField(required=False, default=True)
    is_baseline = serializers.BooleanField(required=False, default=False)


class UploadProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="1-based; 0 for the whole file.")
    message = serializers.CharField()


class UploadErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = UploadProblemSerializer(many=True)


class SubmissionListApi(APIView):
    @extend_schema(responses=paginated(SubmissionSerializer))
    def get(self, request: Request, slug: str) -> Response:
        """Your team's submissions"""
        board = leaderboard_get_visible(user=request.user, slug=slug)
        mine = submissions_of_user(user=cast(User, request.user), leaderboard=board)
        return page_response(request, mine, SubmissionSerializer)

    @extend_schema(
        request={"multipart/form-data": SubmissionUploadSerializer},
        responses={
            201: SubmissionSerializer,
            400: OpenApiResponse(UploadErrorSerializer, description="Every problem, by line"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        """Upload a system output; it is checked now and scored by a worker"""
        board = leaderboard_get_visible(user=request.user, slug=slug)
        if not user_is_researcher(request.user):
            raise PermissionDenied("Participants need a researcher account to submit.")
        fields = validated_input(SubmissionUploadSerializer, request)
        upload = fields["file"]
        try:
            submission = submission_create(
                leaderboard=board,
                user=cast(User, request.user),
                lines=file_lines(upload),
                size=upload.size,
                filename=upload.name,
                method=fields["method"],
                team_name=fields["team"],
                fmt=fields["format"],
                description=fields["description"],
                url=fields["url"],
                is_public=fields["is_public"],
                is_baseline=fields["is_baseline"],
            )
        except UploadRejected as exc:
            return problems_response(
                "The file was not accepted; nothing was queued or charged.",
                upload_problems_as_dicts(exc),
            )
        return Response(SubmissionSerializer(submission).data, status=status.HTTP_201_CREATED)


class SubmissionChangeSerializer(serializers.Serializer):
    counts = serializers.BooleanField(
        required=False,
        help_text="The team: count it on a test leaderboard (up to the board's counted_per_team).",
    )
    cancel = serializers.BooleanField(required=False, default=False, help_text="The team.")
    listing = serializers.ChoiceField(
        choices=Listing.choices,
        required=False,
        help_text="hidden: the board's owner takes it off the board (a reason is required); "
        "withdrawn: its team does; listed: whoever took it off puts it back.",
    )
    reason = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=REASON_MAX
    )
    is_baseline = serializers.BooleanField(required=False, help_text="The board's owner.")


class SubmissionDetailApi(APIView):
    @extend_schema(responses=SubmissionSerializer)
    def get(self, request: Request, submission_id: int) -> Response:
        """A submission's status and scores"""
        submission = submission_get_for_user(user=request.user, submission_id=submission_id)
        return Response(SubmissionSerializer(submission).data)

    @extend_schema(
        request=SubmissionChangeSerializer,
        responses={
            200: SubmissionSerializer,
            409: OpenApiResponse(
                description="`cancel` on a submission that ended other than cancelled (a "
                "finished one is withdrawn instead); cancelling again is a 200."
            ),
        },
    )
    def patch(self, request: Request, submission_id: int) -> Response:
        """Pick whether it counts, hide, withdraw or restore it, mark a baseline, cancel"""
        submission = submission_get_for_user(user=request.user, submission_id=submission_id)
        fields = validated_input(
            SubmissionChangeSerializer, request, answer=SubmissionSerializer(submission)
        )
        user = cast(User, request.user)
        if fields.pop("cancel"):
            submission_cancel(submission=submission, user=user)
        else:
            submission_change(submission=submission, user=user, **fields)
        submission.refresh_from_db()
        return Response(SubmissionSerializer(submission).data)
