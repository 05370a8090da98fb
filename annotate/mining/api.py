"""REST API for mining: corpora, starting a run, and reviewing mined candidates."""

from __future__ import annotations

from typing import cast

from django.conf import settings
from django.contrib.auth.models import User
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.accounts.selectors import user_is_researcher
from annotate.datasets.models import Dataset, Reference, SplitName
from annotate.datasets.selectors import dataset_get_editable
from annotate.mining.candidates import DEFAULT_K
from annotate.mining.models import Corpus
from annotate.mining.selectors import (
    corpus_get_deletable,
    corpus_get_usable,
    corpus_list_usable,
    mined_candidates,
    mining_job_latest,
)
from annotate.mining.services.corpora import corpus_delete, corpus_upload
from annotate.mining.services.mining import MAX_K, mining_start, references_remove_mined
from core.api import deletion_refused, page_response, paginated, validated_input
from core.converters import finite_or_none
from core.runs.api import RunSerializer as JobOutputSerializer


class CorpusOutputSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    # The same choices as the dataset import's `format`, so the schema has one enum for both.
    format = serializers.ChoiceField(choices=["jsonl", "tsv"], read_only=True)

    class Meta:
        model = Corpus
        fields = [
            "id",
            "name",
            "owner",
            "format",
            "language",
            "shared",
            "status",
            "rows",
            "bad_rows",
            "problems",
            "created_at",
            "indexed_at",
        ]


class CorpusInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=["jsonl", "tsv"], required=False)
    language = serializers.CharField(max_length=35, default="en")
    skip_bad_rows = serializers.BooleanField(default=False)


class MiningInputSerializer(serializers.Serializer):
    corpus = serializers.IntegerField()
    split = serializers.ChoiceField(choices=SplitName.values, default="dev")
    k = serializers.IntegerField(min_value=1, max_value=MAX_K, default=DEFAULT_K)


class CandidateOutputSerializer(serializers.ModelSerializer):
    item = serializers.CharField(source="item.external_id", read_only=True)
    split = serializers.CharField(source="item.split.name", read_only=True)
    score = serializers.FloatField(read_only=True, allow_null=True)

    class Meta:
        model = Reference
        fields = ["id", "item", "split", "text", "origin", "score", "provenance"]


def _owned_dataset(request: Request, slug: str) -> Dataset:
    return dataset_get_editable(
        user=request.user, slug=slug, refusal="Only the dataset's owner can mine candidates for it."
    )


class CorpusListApi(APIView):
    @extend_schema(responses=paginated(CorpusOutputSerializer))
    def get(self, request: Request) -> Response:
        """Corpora you can mine"""
        corpora = corpus_list_usable(user=request.user)
        return page_response(request, corpora, CorpusOutputSerializer)

    @extend_schema(
        request={"multipart/form-data": CorpusInputSerializer}, responses={202: JobOutputSerializer}
    )
    def post(self, request: Request) -> Response:
        """Upload a corpus of triples (researchers); it is indexed by a job"""
        if not user_is_researcher(request.user):
            raise PermissionDenied("Only researchers can add corpora.")
        fields = validated_input(CorpusInputSerializer, request)
        upload = fields.pop("file")
        if upload.size > settings.CORPUS_MAX_BYTES:
            raise ValidationError({"file": "The file is too large."})
        _, job = corpus_upload(
            owner=cast(User, request.user), upload=upload, fmt=fields.pop("format", ""), **fields
        )
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class CorpusDetailApi(APIView):
    @extend_schema(responses=CorpusOutputSerializer)
    def get(self, request: Request, corpus_id: int) -> Response:
        """A corpus, its status and bad rows"""
        corpus = corpus_get_usable(user=request.user, corpus_id=corpus_id)
        return Response(CorpusOutputSerializer(corpus).data)

    @extend_schema(
        responses={
            204: OpenApiResponse(description="Deleted, with its uploaded file and its index"),
            409: deletion_refused("A run reads the corpus (its indexing, or a mining run)"),
        }
    )
    def delete(self, request: Request, corpus_id: int) -> Response:
        """Delete a corpus you own (a refused upload, say), its file and its index"""
        corpus_delete(corpus=corpus_get_deletable(user=request.user, corpus_id=corpus_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MiningApi(APIView):
    @extend_schema(responses=JobOutputSerializer)
    def get(self, request: Request, slug: str) -> Response:
        """The dataset's latest mining run"""
        job = mining_job_latest(dataset=_owned_dataset(request, slug))
        if job is None:
            raise Http404("No mining run yet.")
        return Response(JobOutputSerializer(job).data)

    @extend_schema(request=MiningInputSerializer, responses={202: JobOutputSerializer})
    def post(self, request: Request, slug: str) -> Response:
        """Mine candidate references for a split from a corpus (owner); follow the job"""
        dataset = _owned_dataset(request, slug)
        fields = validated_input(MiningInputSerializer, request)
        corpus = corpus_get_usable(user=request.user, corpus_id=fields.pop("corpus"))
        job = mining_start(user=cast(User, request.user), dataset=dataset, corpus=corpus, **fields)
        return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class CandidateListApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("split", str, enum=SplitName.values, required=False),
            OpenApiParameter("min_score", float, required=False),
            OpenApiParameter("max_score", float, required=False),
        ],
        responses=paginated(CandidateOutputSerializer),
    )
    def get(self, request: Request, slug: str) -> Response:
        """Mined and parroted candidates, best BM25 score first (owner)"""
        dataset = _owned_dataset(request, slug)
        params = request.query_params
        bounds = {n: finite_or_none(params[n]) for n in ("min_score", "max_score") if params.get(n)}
        wrong = {name: ["Give a finite number."] for name, value in bounds.items() if value is None}
        if wrong:
            raise ValidationError(wrong)
        candidates = mined_candidates(dataset=dataset, split=params.get("split") or None, **bounds)
        return page_response(request, candidates, CandidateOutputSerializer)


class CandidateDetailApi(APIView):
    @extend_schema(responses={204: None})
    def delete(self, request: Request, slug: str, reference_id: int) -> Response:
        """Remove a mined candidate (owner)"""
        dataset = _owned_dataset(request, slug)
        removed = references_remove_mined(
            user=cast(User, request.user), dataset=dataset, reference_ids=[reference_id]
        )
        if not removed:
            raise Http404("No such mined candidate.")
        return Response(status=status.HTTP_204_NO_CONTENT)
