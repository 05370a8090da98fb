"""REST API for datasets: thin views over the services and selectors."""

from __future__ import annotations

from typing import cast

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import ProtectedError
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.api import serializers as s
from annotate.formats import FileProblems
from annotate.models import Dataset
from annotate.selectors.datasets import (
    dataset_can_edit,
    dataset_export_jsonl,
    dataset_get_visible,
    dataset_items,
    dataset_list_visible,
    user_is_researcher,
)
from annotate.services.accounts import profile_ensure
from annotate.services.datasets import (
    dataset_create,
    dataset_delete,
    dataset_import_file,
    dataset_update,
    import_format_for,
)
from annotate.services.reveal import dataset_reveal_split
from annotate.visibility import dataset_splits_hidden_from
from core.api import paginated


def _editable_dataset(request: Request, slug: str) -> Dataset:
    dataset = dataset_get_visible(user=request.user, slug=slug)
    if not dataset_can_edit(user=request.user, dataset=dataset):
        raise PermissionDenied("Only the dataset's owner can change it.")
    return dataset


class DatasetListApi(APIView):
    @extend_schema(
        responses=paginated(s.DatasetOutputSerializer),
        operation_id="v1_datasets_list",
        summary="Datasets you can see",
    )
    def get(self, request: Request) -> Response:
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(dataset_list_visible(user=request.user), request)
        return paginator.get_paginated_response(s.DatasetOutputSerializer(page, many=True).data)

    @extend_schema(
        request=s.DatasetInputSerializer,
        responses={201: s.DatasetOutputSerializer},
        summary="Create a dataset (researchers)",
    )
    def post(self, request: Request) -> Response:
        if not user_is_researcher(request.user):
            raise PermissionDenied("Only researchers can create datasets.")
        data = s.DatasetInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        dataset = dataset_create(owner=cast(User, request.user), **data.validated_data)
        return Response(s.DatasetOutputSerializer(dataset).data, status=status.HTTP_201_CREATED)


class DatasetDetailApi(APIView):
    @extend_schema(responses=s.DatasetOutputSerializer, summary="One dataset")
    def get(self, request: Request, slug: str) -> Response:
        dataset = dataset_get_visible(user=request.user, slug=slug)
        return Response(s.DatasetOutputSerializer(dataset).data)

    @extend_schema(
        request=s.DatasetUpdateSerializer,
        responses=s.DatasetOutputSerializer,
        summary="Change a dataset (owner)",
    )
    def patch(self, request: Request, slug: str) -> Response:
        dataset = _editable_dataset(request, slug)
        data = s.DatasetUpdateSerializer(dataset, data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        dataset = dataset_update(dataset=dataset, **data.validated_data)
        return Response(s.DatasetOutputSerializer(dataset).data)

    @extend_schema(
        responses={
            204: None,
            409: OpenApiResponse(
                description="The dataset has releases (citable): it cannot be deleted."
            ),
        },
        summary="Delete a dataset with its items (owner)",
    )
    def delete(self, request: Request, slug: str) -> Response:
        try:
            dataset_delete(dataset=_editable_dataset(request, slug))
        except ProtectedError:
            # Releases are citable: a dataset that has any cannot disappear under them.
            body = {"detail": "The dataset has releases; it cannot be deleted."}
            return Response(body, status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DatasetItemsApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("split", str, enum=["dev", "test"], required=False)],
        responses=paginated(s.ItemOutputSerializer),
        operation_id="v1_datasets_items_list",
        summary="Items of a dataset with their references, in import order",
    )
    def get(self, request: Request, slug: str) -> Response:
        dataset = dataset_get_visible(user=request.user, slug=slug)
        hidden = dataset_splits_hidden_from(user=request.user, dataset=dataset)
        split = request.query_params.get("split") or None
        items = dataset_items(dataset=dataset, split=split, hidden=hidden)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(items, request)
        data = s.ItemOutputSerializer(page, many=True, context={"hidden": hidden}).data
        return paginator.get_paginated_response(data)


class DatasetImportApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request={"multipart/form-data": s.ImportInputSerializer},
        responses={
            201: s.ImportOutputSerializer,
            400: OpenApiResponse(s.ImportErrorSerializer, description="Every problem, by line"),
        },
        summary="Import items and references from a JSONL or TSV file (owner); all or nothing",
    )
    def post(self, request: Request, slug: str) -> Response:
        dataset = _editable_dataset(request, slug)
        data = s.ImportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        if upload.size > settings.IMPORT_MAX_BYTES:
            raise ValidationError({"file": "The file is too large."})
        try:
            fmt = import_format_for(upload.name, data.validated_data.get("format", ""))
            summary = dataset_import_file(dataset=dataset, lines=upload, fmt=fmt)
        except FileProblems as exc:
            problems = [p.as_dict("line", "field", "message") for p in exc.problems]
            body = {
                "detail": "The file was not imported; nothing was written.",
                "problems": problems,
            }
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {"items": summary.items, "references": summary.references},
            status=status.HTTP_201_CREATED,
        )


class DatasetExportApi(APIView):
    @extend_schema(
        responses={(200, "application/jsonl"): OpenApiResponse(description="Canonical JSONL")},
        summary="The dataset as JSONL, the same layout the import reads",
    )
    def get(self, request: Request, slug: str) -> StreamingHttpResponse:
        dataset = dataset_get_visible(user=request.user, slug=slug)
        hidden = dataset_splits_hidden_from(user=request.user, dataset=dataset)
        response = StreamingHttpResponse(
            dataset_export_jsonl(dataset=dataset, hidden=hidden),
            content_type="application/jsonl; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{dataset.slug}.jsonl"'
        return response


class MeApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=s.MeOutputSerializer, summary="Who the API sees you as")
    def get(self, request: Request) -> Response:
        profile = profile_ensure(user=cast(User, request.user))
        body = {
            "username": request.user.username,
            "role": profile.role,
            "is_staff": request.user.is_staff,
        }
        return Response(body)


class DatasetRevealApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=s.RevealInputSerializer,
        responses=s.DatasetOutputSerializer,
        summary="Reveal a hidden split's references on the dataset (owner; final, logged)",
    )
    def post(self, request: Request, slug: str) -> Response:
        dataset = _editable_dataset(request, slug)
        data = s.RevealInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        dataset = dataset_reveal_split(
            dataset=dataset, by=cast(User, request.user), **data.validated_data
        )
        return Response(s.DatasetOutputSerializer(dataset).data)
