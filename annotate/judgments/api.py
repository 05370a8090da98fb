"""REST API of imported human judgments: upload a bundle (multipart), read an import's report."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.datasets.models import SplitName
from annotate.datasets.selectors import dataset_get_visible
from annotate.judgments.models import JudgmentSet
from annotate.judgments.selectors import judgment_set_get_managed
from annotate.judgments.services.importing import JudgmentsRejected, judgments_import_files
from core.api import problems_response, validated_input


class JudgmentProblemSerializer(serializers.Serializer):
    file = serializers.CharField()
    line = serializers.IntegerField(help_text="1-based; 0 for the whole file.")
    message = serializers.CharField()
    level = serializers.ChoiceField(choices=["error", "warning"], help_text="error: skipped")


class JudgmentSetOutputSerializer(serializers.ModelSerializer):
    dataset: serializers.SlugRelatedField = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )

    class Meta:
        model = JudgmentSet
        fields = ["id", "dataset", "name", "split", "criteria", "report", "created_at"]


class JudgmentUploadInputSerializer(serializers.Serializer):
    judgments = serializers.FileField(help_text="Per-judge scores: judge, id, system, criteria …")
    systems = serializers.FileField(required=False, help_text="system, id, response")
    contexts = serializers.FileField(required=False, help_text="id, depth, context")
    references = serializers.FileField(required=False, help_text="id, ref1, ref2, …")
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    split = serializers.ChoiceField(choices=SplitName.choices, default=SplitName.TEST)


class JudgmentRejectedSerializer(serializers.Serializer):
    detail = serializers.CharField()
    problems = JudgmentProblemSerializer(many=True)


class JudgmentImportApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request={"multipart/form-data": JudgmentUploadInputSerializer},
        responses={
            201: JudgmentSetOutputSerializer,
            400: OpenApiResponse(JudgmentRejectedSerializer, description="By file and line"),
        },
        summary="Import human judgments (with systems' outputs, contexts, references)",
    )
    def post(self, request: Request, slug: str) -> Response:
        dataset = dataset_get_visible(user=request.user, slug=slug)
        fields = validated_input(JudgmentUploadInputSerializer, request)
        try:
            imported = judgments_import_files(
                dataset=dataset,
                owner=cast(User, request.user),
                name=fields["name"],
                split=fields["split"],
                files=fields,
            )
        except JudgmentsRejected as exc:
            problems = [p.as_dict() for p in exc.problems]
            return problems_response("No judgment could be read; nothing was written.", problems)
        return Response(JudgmentSetOutputSerializer(imported).data, status=status.HTTP_201_CREATED)


class JudgmentSetDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: JudgmentSetOutputSerializer, 404: OpenApiResponse(description="")},
        summary="An import of judgments with its report (problems by file and line)",
    )
    def get(self, request: Request, judgment_set_id: int) -> Response:
        judgment_set = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
        return Response(JudgmentSetOutputSerializer(judgment_set).data)
