"""REST API for datasets: thin views over the services and selectors."""

from __future__ import annotations

from typing import cast

from django.conf import settings
from django.contrib.auth.models import User
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.datasets import selectors
from annotate.datasets import serializers as s
from annotate.datasets.formats import FileProblems
from annotate.datasets.models import Dataset
from annotate.datasets.selectors.deletion import dataset_deletion_preview
from annotate.datasets.services import datasets as services
from annotate.datasets.visibility import dataset_splits_hidden_from
from core.api import page_response, paginated, problems_response, validated_input
from core.lines import file_lines


def _editable_dataset(request: Request, slug: str) -> Dataset:
    return selectors.dataset_get_editable(
        user=request.user, slug=slug, refusal="Only the dataset's owner can change it."
    )


class DatasetListApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=paginated(s.DatasetOutputSerializer))
    def get(self, request: Request) -> Response:
        """Datasets you can see"""
        datasets = selectors.dataset_list_visible(user=request.user)
        return page_response(request, datasets, s.DatasetOutputSerializer)

    @extend_schema(request=s.DatasetInputSerializer, responses={201: s.DatasetOutputSerializer})
    def post(self, request: Request) -> Response:
        """Create a dataset (researchers)"""
        services.dataset_creator_check(user=request.user)  # before reading the input
        fields = validated_input(s.DatasetInputSerializer, request)
        dataset = services.dataset_create(owner=cast(User, request.user), **fields)
        return Response(s.DatasetOutputSerializer(dataset).data, status=status.HTTP_201_CREATED)


class DatasetDetailApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=s.DatasetOutputSerializer)
    def get(self, request: Request, slug: str) -> Response:
        """One dataset"""
        dataset = selectors.dataset_get_visible(user=request.user, slug=slug)
        return Response(s.DatasetOutputSerializer(dataset).data)

    @extend_schema(request=s.DatasetUpdateSerializer, responses=s.DatasetOutputSerializer)
    def patch(self, request: Request, slug: str) -> Response:
        """Change a dataset (owner)"""
        dataset = _editable_dataset(request, slug)
        fields = validated_input(
            s.DatasetUpdateSerializer,
            request,
            instance=dataset,
            partial=True,
            answer=s.DatasetOutputSerializer(dataset),
        )
        dataset = services.dataset_update(dataset=dataset, **fields)
        return Response(s.DatasetOutputSerializer(dataset).data)

    @extend_schema(
        responses={
            204: None,
            409: OpenApiResponse(
                s.DeletionRefusedSerializer,
                description="Something keeps the dataset (a release is citable): named in the "
                "body; nothing was deleted.",
            ),
        }
    )
    def delete(self, request: Request, slug: str) -> Response:
        """Delete a dataset with everything on it (owner); see …/deletion/ first"""
        try:
            services.dataset_delete(dataset=_editable_dataset(request, slug))
        except services.DeletionRefused as exc:
            body = s.DeletionRefusedSerializer(exc.preview).data
            return Response(body, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DatasetDeletionApi(APIView):
    @extend_schema(responses=s.DeletionPreviewSerializer)
    def get(self, request: Request, slug: str) -> Response:
        """What deleting the dataset would remove, and what would refuse it (owner)"""
        preview = dataset_deletion_preview(dataset=_editable_dataset(request, slug))
        return Response(s.DeletionPreviewSerializer(preview).data)


class DatasetItemsApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        parameters=[OpenApiParameter("split", str, enum=["dev", "test"], required=False)],
        responses=paginated(s.ItemOutputSerializer),
    )
    def get(self, request: Request, slug: str) -> Response:
        """Items of a dataset with their references, in import order"""
        dataset = selectors.dataset_get_visible(user=request.user, slug=slug)
        hidden = dataset_splits_hidden_from(user=request.user, dataset=dataset)
        split = request.query_params.get("split") or None
        items = selectors.dataset_items(dataset=dataset, split=split, hidden=hidden)
        return page_response(request, items, s.ItemOutputSerializer, context={"hidden": hidden})


class DatasetImportApi(APIView):
    @extend_schema(
        request={"multipart/form-data": s.ImportInputSerializer},
        responses={
            201: s.ImportOutputSerializer,
            400: OpenApiResponse(s.ImportErrorSerializer, description="Every problem, by line"),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        """Import items and references from a JSONL or TSV file (owner); all or nothing"""
        dataset = _editable_dataset(request, slug)
        fields = validated_input(s.ImportInputSerializer, request)
        upload = fields["file"]
        if upload.size > settings.IMPORT_MAX_BYTES:
            raise ValidationError({"file": "The file is too large."})
        try:
            fmt = services.import_format_for(upload.name, fields.get("format", ""))
            summary = services.dataset_import_file(
                dataset=dataset, lines=file_lines(upload), fmt=fmt
            )
        except FileProblems as exc:
            problems = [p.as_dict("line", "field", "message") for p in exc.problems]
            return problems_response("The file was not imported; nothing was written.", problems)
        return Response(
            {"items": summary.items, "references": summary.references},
            status=status.HTTP_201_CREATED,
        )


class DatasetExportApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        responses={(200, "application/jsonl"): OpenApiResponse(description="Canonical JSONL")}
    )
    def get(self, request: Request, slug: str) -> StreamingHttpResponse:
        """The dataset as JSONL, the same layout the import reads"""
        dataset = selectors.dataset_get_visible(user=request.user, slug=slug)
        hidden = dataset_splits_hidden_from(user=request.user, dataset=dataset)
        response = StreamingHttpResponse(
            selectors.dataset_export_jsonl(dataset=dataset, hidden=hidden),
            content_type="application/jsonl; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{dataset.slug}.jsonl"'
        return response
