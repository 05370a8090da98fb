"""REST API of imported human judgments: upload a bundle (multipart), preview how its columns
will be read, read an import's report."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.datasets.models import SplitName
from annotate.datasets.selectors import dataset_get_editable, dataset_get_visible
from annotate.judgments.bundles import (
    BUNDLE_FILES,
    ColumnsUnsure,
    ReadOptions,
    judgments_preview,
    read_options,
)
from annotate.judgments.columns import (
    ROLES,
    MappedColumn,
    mapping_from_json,
    separators_from_json,
)
from annotate.judgments.models import JudgmentSet
from annotate.judgments.selectors import column_mapping_recall, judgment_set_get_managed
from annotate.judgments.serializers import (
    JudgmentPreviewSerializer,
    JudgmentRejectedSerializer,
    JudgmentSetOutputSerializer,
    JudgmentSetSummarySerializer,
)
from annotate.judgments.services.importing import JudgmentsRejected, judgments_import_files
from annotate.judgments.summary_exports import summary_payload
from annotate.judgments.summary_selectors import judgment_set_summary
from core.api import problems_response
from core.lines import problems_counted

COLUMNS_HELP = (
    "How to read the columns when the guess is unsure: a JSON object of role (or file.role, "
    "file one of contexts, references, systems, judgments) to a column's header name or 1-based "
    'number, or a list of them, e.g. {"judge": "WorkerId", "item": "InstanceID", '
    f'"criterion": ["Rel", "Inf"]}}. Roles: {", ".join(ROLES)}.'
)


class JudgmentUploadInputSerializer(serializers.Serializer):
    judgments = serializers.FileField(help_text="Per-judge scores: judge, id, system, criteria …")
    systems = serializers.FileField(required=False, help_text="system, id, response")
    contexts = serializers.FileField(required=False, help_text="id, depth, context")
    references = serializers.FileField(required=False, help_text="id, ref1, ref2, …")
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    split = serializers.ChoiceField(choices=SplitName.choices, default=SplitName.TEST)
    columns = serializers.CharField(required=False, allow_blank=True, help_text=COLUMNS_HELP)
    separators = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=1000,
        help_text="How the judgments file's cells of several values are split: a JSON object "
        'by role (references, context), e.g. {"references": "tab", "context": "||||"}; '
        "separators: tab, newline, |||, ||||, eos, eou, json, none. Detected when not given.",
    )
    original = serializers.ChoiceField(
        choices=["first", "last"],
        required=False,
        help_text="Where the original reply is among a cell's references: first when not "
        "given (or as remembered for the file's header); an `original` column overrides it.",
    )
    wide = serializers.ChoiceField(
        choices=["systems"],
        required=False,
        help_text="`systems`: the score columns are one a system, named by it (no system "
        "column); their criterion is `score`.",
    )


def _refused(detail: str, problems: list | None = None, preview: dict | None = None) -> Response:
    response = problems_response(detail, problems or [])
    if preview is not None:
        response.data["preview"] = preview
    return response


def _refused_for(exc: ValidationError) -> Response:
    """A bad field's 400: one message as `detail`, and the field's messages under its name."""
    response = _refused(" ".join(exc.messages))
    if hasattr(exc, "error_dict"):
        response.data.update(exc.message_dict)
    return response


def _input(request: Request) -> tuple[dict[str, Any], list[MappedColumn], ReadOptions]:
    """The upload's fields, mapping and read options; a bad field, a file over the limit or a
    malformed mapping is a ValidationError with one message."""
    data = JudgmentUploadInputSerializer(data=request.data)
    if not data.is_valid():
        raise ValidationError(
            {
                field: [f"{field}: {error}" for error in errors]
                for field, errors in data.errors.items()
            }
        )
    fields = dict(data.validated_data)
    limit = settings.IMPORT_MAX_BYTES
    for key in BUNDLE_FILES:
        if key in fields and fields[key].size > limit:
            too_big = f"{key}: the file is larger than {limit // (1024 * 1024)} MB."
            raise ValidationError({key: too_big})
    text = fields.get("columns") or ""
    options = read_options(
        separators=separators_from_json(fields.get("separators") or ""),
        original=fields.get("original", ""),
        wide=fields.get("wide", ""),
    )
    return fields, mapping_from_json(text) if text.strip() else [], options


def _files(fields: dict[str, Any]) -> dict[str, Any]:
    return {key: fields[key] for key in BUNDLE_FILES if key in fields}


UPLOAD_SCHEMA = {"multipart/form-data": JudgmentUploadInputSerializer}
REFUSED = OpenApiResponse(
    JudgmentRejectedSerializer,
    description="Nothing written: problems by file and line; when the columns could not be "
    "told apart, `preview` shows each file's first rows and guessed roles, to send `columns`.",
)


def _upload_responses(ok: int, serializer: type[serializers.Serializer]) -> dict[int, Any]:
    """What an upload of judgment files answers: `ok` with `serializer`'s body, or why not."""
    return {
        ok: serializer,
        400: REFUSED,
        403: OpenApiResponse(description="Not the dataset's owner"),
        404: OpenApiResponse(description="No such dataset visible to you"),
    }


class JudgmentImportApi(APIView):
    @extend_schema(
        request=UPLOAD_SCHEMA, responses=_upload_responses(201, JudgmentSetOutputSerializer)
    )
    def post(self, request: Request, slug: str) -> Response:
        """Import human judgments (with systems' outputs, contexts, references)"""
        dataset = dataset_get_visible(user=request.user, slug=slug)
        try:
            fields, columns, options = _input(request)
            imported = judgments_import_files(
                dataset=dataset,
                owner=cast(User, request.user),
                name=fields["name"],
                split=fields["split"],
                files=_files(fields),
                columns=columns,
                options=options,
            )
        except ColumnsUnsure as exc:
            return _refused(exc.messages[0], preview=exc.preview)
        except JudgmentsRejected as exc:
            problems = [p.as_dict() for p in problems_counted(exc.problems)]
            return _refused("No judgment could be read; nothing was written.", problems)
        except ValidationError as exc:
            return _refused_for(exc)
        return Response(JudgmentSetOutputSerializer(imported).data, status=status.HTTP_201_CREATED)


class JudgmentPreviewApi(APIView):
    @extend_schema(
        request=UPLOAD_SCHEMA, responses=_upload_responses(200, JudgmentPreviewSerializer)
    )
    def post(self, request: Request, slug: str) -> Response:
        """How the files' columns would be read (first rows, guessed roles); writes nothing"""
        dataset_get_editable(
            user=request.user, slug=slug, refusal="Only the dataset's owner can import judgments."
        )
        recall = column_mapping_recall(owner=cast(User, request.user))  # as the import would
        try:
            fields, columns, options = _input(request)
            files = {k: (f.name or k, f.read()) for k, f in _files(fields).items()}
            preview = judgments_preview(
                files=files, columns=columns, options=options, recall=recall
            )
        except ValidationError as exc:
            return _refused_for(exc)
        return Response(preview)


class JudgmentSetDetailApi(APIView):
    @extend_schema(
        responses={200: JudgmentSetOutputSerializer, 404: OpenApiResponse(description="")}
    )
    def get(self, request: Request, judgment_set_id: int) -> Response:
        """An import of judgments with its report (problems by file and line)"""
        judgment_set: JudgmentSet = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
        return Response(JudgmentSetOutputSerializer(judgment_set).data)


class JudgmentSetSummaryApi(APIView):
    @extend_schema(
        responses={
            200: JudgmentSetSummarySerializer,
            404: OpenApiResponse(description="No such set of judgments that you manage"),
        }
    )
    def get(self, request: Request, judgment_set_id: int) -> Response:
        """Each system's mean per criterion over all the set's judged items, with intervals

        Per system and criterion: the mean of item means (each item's judges averaged first)
        over every judged item, with or without references — the number evaluations publish —
        its 95% bootstrap interval (items resampled, seeded) and the counts; Krippendorff's
        alpha between the judges where the set has individual judgments; the import's report.
        """
        judgment_set = judgment_set_get_managed(user=request.user, pk=judgment_set_id)
        summary = judgment_set_summary(judgment_set=judgment_set)
        return Response(JudgmentSetSummarySerializer(summary_payload(judgment_set, summary)).data)
