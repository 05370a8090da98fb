"""REST API for checking the completion codes a campaign's participants handed in (owner)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.rating.selectors.campaigns import campaign_get_managed
from annotate.rating.selectors.completion import (
    MAX_CODE_CHARS,
    MAX_CODE_CHECKS,
    MAX_PARTICIPANT_CHARS,
    VERDICTS,
    completion_codes_check,
)
from core.api import validated_input
from core.parsers import StrictJSONParser


class CodeEntrySerializer(serializers.Serializer):
    participant = serializers.CharField(
        max_length=MAX_PARTICIPANT_CHARS,
        help_text="A crowd participant's id, as the platform gave it, or an account rater's "
        "username (for the receipt an account rater is shown).",
    )
    code = serializers.CharField(max_length=MAX_CODE_CHARS, help_text="The code as handed in.")


class CodeCheckInputSerializer(serializers.Serializer):
    entries = serializers.ListField(
        child=CodeEntrySerializer(),
        allow_empty=False,
        min_length=1,  # allow_empty alone leaves minItems out of the schema
        max_length=MAX_CODE_CHECKS,
        help_text=f"The codes to check, at most {MAX_CODE_CHECKS:,} at a time.",
    )


class CodeCheckSerializer(serializers.Serializer):
    participant = serializers.CharField()
    code = serializers.CharField()
    valid = serializers.BooleanField()
    verdict = serializers.ChoiceField(choices=list(VERDICTS))
    message = serializers.CharField(help_text="The verdict in words.")


class CodeChecksSerializer(serializers.Serializer):
    checked = serializers.IntegerField()
    valid = serializers.IntegerField()
    results = CodeCheckSerializer(many=True, help_text="One per entry, in the entries' order.")


class CampaignCompletionCodesApi(APIView):
    parser_classes = [StrictJSONParser]  # a list of objects: JSON only, as the schema says

    @extend_schema(request=CodeCheckInputSerializer, responses=CodeChecksSerializer)
    def post(self, request: Request, campaign_id: int) -> Response:
        """Check the completion codes participants handed in (owner)

        Before paying a crowd batch: for each participant and code, whether the code is theirs in
        this campaign and they passed quality control. Case, spaces and dashes are ignored.
        Writes nothing."""
        campaign = campaign_get_managed(user=request.user, campaign_id=campaign_id)
        fields = validated_input(CodeCheckInputSerializer, request)
        entries = [(entry["participant"], entry["code"]) for entry in fields["entries"]]
        checks = completion_codes_check(campaign=campaign, entries=entries)
        return Response(CodeChecksSerializer(checks).data)
