"""REST API for releases: list, freeze, publish, manifest, files, archive job, diff, import."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.http import Http404, HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.datasets import serializers as s
from annotate.datasets.models import SplitName
from annotate.datasets.selectors import dataset_get_editable, dataset_get_visible
from annotate.rating.selectors.campaigns import campaign_of_dataset
from annotate.releases.models import Release, WeightVariant, semantic_version
from annotate.releases.selectors.diff import release_diff
from annotate.releases.selectors.releases import (
    release_file_names,
    release_file_sha256,
    release_find_visible,
    release_get_editable,
    release_get_visible,
    release_list_visible,
)
from annotate.releases.services import release_freeze
from annotate.releases.services.archive import (
    release_archive_job,
    release_archive_ready,
    release_archive_request,
)
from annotate.releases.services.importing import release_import_archive, release_importer_check
from annotate.releases.services.publish import release_publish_confirmed
from annotate.releases.services.reveal import dataset_reveal_split, release_reveal
from annotate.releases.services.unrated import UNRATED_VALUES
from core.api import confirmation_field, page_response, paginated, validated_input
from core.bounded import Limit, LimitExceeded
from core.http import stored_download
from core.runs.api import WAITING_HELP
from core.runs.models import Run, RunState
from core.runs.queue_selectors import waiting_reason


class RevealInputSerializer(serializers.Serializer):
    split = serializers.ChoiceField(choices=SplitName.choices)
    confirm = confirmation_field(
        "The dataset's slug", because="revealing a hidden split is final and logged"
    )


class PublishInputSerializer(serializers.Serializer):
    confirm = confirmation_field(
        "The release's name, <dataset slug>@<version>", because="publishing is final"
    )
    unrated = serializers.ChoiceField(
        choices=UNRATED_VALUES,
        required=False,
        default="",
        help_text="For a draft whose unrated references were left undecided: exclude or zero.",
    )


class UnratedOutputSerializer(serializers.Serializer):
    choice = serializers.ChoiceField(choices=["none", *UNRATED_VALUES])
    references = serializers.IntegerField()


class ReleaseOutputSerializer(serializers.ModelSerializer):
    dataset = s.dataset_slug_field()
    unrated = serializers.SerializerMethodField(
        help_text="What became of references the campaign never rated (null: not recorded)."
    )

    @extend_schema_field(UnratedOutputSerializer(allow_null=True))
    def get_unrated(self, release: Release) -> dict | None:
        return release.build_info.get("unrated")

    class Meta:
        model = Release
        fields = [
            "id",
            "dataset",
            "version",
            "status",
            "campaign",
            "weight_variant",
            "public_splits",
            "include_ratings",
            "license",
            "citation",
            "description",
            "created_at",
            "published_at",
            "snapshot_checksum",
            "manifest",
            "manifest_checksum",
            "imported",
            "unrated",
        ]


class ReleaseInputSerializer(serializers.Serializer):
    version = serializers.CharField(max_length=32, validators=[semantic_version])
    campaign = serializers.IntegerField()
    weight_variant = serializers.ChoiceField(choices=WeightVariant.choices, default="raw")
    public_splits = serializers.ListField(
        child=serializers.ChoiceField(choices=SplitName.choices), default=["dev"]
    )
    include_ratings = serializers.BooleanField(default=False)
    license = serializers.CharField(max_length=100, default="CC-BY-4.0")
    citation = serializers.CharField(allow_blank=True, default="")
    description = serializers.CharField(allow_blank=True, default="")
    unrated = serializers.ChoiceField(
        choices=UNRATED_VALUES,
        required=False,
        default="",
        help_text="References the campaign never rated: exclude them, or publish them with "
        "weight 0. Without it, freezing is refused while there are some.",
    )


class ReleaseListApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=paginated(ReleaseOutputSerializer))
    def get(self, request: Request, slug: str) -> Response:
        """Releases of a dataset"""
        dataset = dataset_get_visible(user=request.user, slug=slug)
        releases = release_list_visible(user=request.user, dataset=dataset)
        return page_response(request, releases, ReleaseOutputSerializer)

    @extend_schema(request=ReleaseInputSerializer, responses={201: ReleaseOutputSerializer})
    def post(self, request: Request, slug: str) -> Response:
        """Freeze a draft release (owner); the answer carries its id"""
        dataset = dataset_get_editable(
            user=request.user, slug=slug, refusal="Only the dataset's owner can freeze a release."
        )
        fields = validated_input(ReleaseInputSerializer, request)
        campaign = campaign_of_dataset(dataset=dataset, campaign_id=fields.pop("campaign"))
        if campaign is None:
            raise ValidationError({"campaign": "No such campaign on this dataset."})
        release = release_freeze(
            dataset=dataset, campaign=campaign, created_by=cast(User, request.user), **fields
        )
        return Response(ReleaseOutputSerializer(release).data, status=status.HTTP_201_CREATED)


class ReleaseDetailApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=ReleaseOutputSerializer)
    def get(self, request: Request, slug: str, version: str) -> Response:
        """One release"""
        release = release_get_visible(user=request.user, slug=slug, version=version)
        return Response(ReleaseOutputSerializer(release).data)


class ReleasePublishApi(APIView):
    @extend_schema(request=PublishInputSerializer, responses=ReleaseOutputSerializer)
    def post(self, request: Request, slug: str, version: str) -> Response:
        """Publish (owner; final, confirmed with the release's name)"""
        release = release_get_editable(user=request.user, slug=slug, version=version)
        fields = validated_input(PublishInputSerializer, request)
        release = release_publish_confirmed(release=release, **fields)
        return Response(ReleaseOutputSerializer(release).data)


class ReleaseRevealApi(APIView):
    @extend_schema(request=RevealInputSerializer, responses=ReleaseOutputSerializer)
    def post(self, request: Request, slug: str, version: str) -> Response:
        """Publish a hidden split's references (owner)"""
        release = release_get_editable(user=request.user, slug=slug, version=version)
        fields = validated_input(RevealInputSerializer, request)
        release = release_reveal(release=release, by=cast(User, request.user), **fields)
        return Response(ReleaseOutputSerializer(release).data)


class ReleaseManifestApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=OpenApiResponse(description="manifest.json"))
    def get(self, request: Request, slug: str, version: str) -> Response:
        """Manifest"""
        release = release_get_visible(user=request.user, slug=slug, version=version)
        if not release.is_published:
            raise Http404("A draft has no files yet.")
        return Response({**release.manifest, "sha256": release.manifest_checksum})


class ReleaseFileApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiResponse()})
    def get(self, request: Request, slug: str, version: str, name: str) -> HttpResponseBase:
        """One file of a published release, by the name its manifest gives

        With an ETag (the file's SHA-256), and a one-span `Range` to resume, as every stored
        download."""
        release = release_get_visible(user=request.user, slug=slug, version=version)
        if name not in release_file_names(release=release):
            raise Http404("No such file in this release.")
        sha256 = release_file_sha256(release=release, name=name)
        return stored_download(request, release.storage_prefix + name, name, sha256=sha256)


class ArchiveStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ready", "building"], help_text="The archive's.")
    run = serializers.IntegerField(
        required=False, allow_null=True, help_text="The run building it: /api/v1/runs/<id>/."
    )
    state = serializers.ChoiceField(
        choices=RunState.choices,
        allow_null=True,
        help_text="The state of the run building it, in the words of every run (succeeded once "
        "ready; null when no build was asked for).",
    )
    waiting_reason = serializers.CharField(help_text=WAITING_HELP)
    sha256 = serializers.CharField(required=False)


def archive_answer(status_word: str, run: Run | None, **extra: str) -> dict[str, Any]:
    """An archive's status with its run's state and, while it is queued, why it waits."""
    state = RunState.SUCCEEDED.value if status_word == "ready" else run and run.state
    return {
        "status": status_word,
        **({} if status_word == "ready" else {"run": run.pk if run else None}),
        "state": state,
        "waiting_reason": waiting_reason(run) if run else "",
        **extra,
    }


class ReleaseImportInputSerializer(serializers.Serializer):
    archive = serializers.FileField(help_text="A release archive (zip) from any installation.")
    slug = serializers.SlugField(required=False, help_text="Slug of the dataset to create.")


class ReleaseArchiveApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        responses={
            (200, "application/zip"): OpenApiResponse(description="The archive"),
            202: OpenApiResponse(ArchiveStatusSerializer, description="Being built"),
        }
    )
    def get(self, request: Request, slug: str, version: str):
        """Download the archive, or the run building it"""
        release = release_get_visible(user=request.user, slug=slug, version=version)
        if not release.is_published:
            raise Http404("A draft has no archive.")
        if release_archive_ready(release=release):
            name = release.archive_name.rsplit("/")[-1]
            return stored_download(
                request, release.archive_name, name, sha256=release.archive_sha256
            )
        run = release_archive_job(release=release)
        return Response(archive_answer("building", run), status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        request=None,
        responses={
            200: OpenApiResponse(ArchiveStatusSerializer, description="Already built"),
            202: OpenApiResponse(ArchiveStatusSerializer, description="Being built"),
        },
    )
    def post(self, request: Request, slug: str, version: str) -> Response:
        """Start building the archive (owner); cached once built"""
        release = release_get_editable(user=request.user, slug=slug, version=version)
        if not release.is_published:
            raise ValidationError("Publish the release first.")
        run = release_archive_request(release=release)
        if run is None:
            return Response(archive_answer("ready", None, sha256=release.archive_sha256))
        return Response(archive_answer("building", run), status=status.HTTP_202_ACCEPTED)


class ReleaseDiffApi(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        parameters=[
            OpenApiParameter("old", str, required=True),
            OpenApiParameter("new", str, required=True),
        ],
        responses=OpenApiResponse(
            OpenApiTypes.OBJECT,
            description="Items, references and weights added, removed and changed",
        ),
    )
    def get(self, request: Request, slug: str) -> Response:
        """Differences between two releases (?old=…&new=…)"""
        dataset = dataset_get_visible(user=request.user, slug=slug)
        versions = {key: request.query_params.get(key, "") for key in ("old", "new")}
        missing = [key for key, version in versions.items() if not version]
        if missing:  # a request without them is malformed; one naming an unknown release is a 404
            raise ValidationError({key: ["Name a release (its version)."] for key in missing})
        old, new = (
            release_find_visible(user=request.user, dataset=dataset, version=versions[key])
            for key in ("old", "new")
        )
        if old is None or new is None:
            raise Http404("Name two releases you can see with ?old= and ?new=.")
        return Response(release_diff(user=request.user, old=old, new=new))


class ReleaseImportApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": ReleaseImportInputSerializer},
        responses={201: ReleaseOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        """Import a release archive (researchers)"""
        release_importer_check(user=request.user)  # before the upload is read
        fields = validated_input(ReleaseImportInputSerializer, request)
        upload = fields["archive"]
        if upload.size > settings.IMPORT_MAX_BYTES:
            limit = Limit.from_settings("IMPORT_MAX_BYTES")
            raise LimitExceeded(limit, f"The archive is {upload.size:,} bytes")
        release = release_import_archive(
            source=upload, owner=cast(User, request.user), slug=fields.get("slug")
        )
        return Response(ReleaseOutputSerializer(release).data, status=status.HTTP_201_CREATED)


class DatasetRevealApi(APIView):
    @extend_schema(request=RevealInputSerializer, responses=s.DatasetOutputSerializer)
    def post(self, request: Request, slug: str) -> Response:
        """Reveal a hidden split's references on the dataset (owner; final, logged)"""
        dataset = dataset_get_editable(
            user=request.user, slug=slug, refusal="Only the dataset's owner can change it."
        )
        fields = validated_input(RevealInputSerializer, request)
        dataset = dataset_reveal_split(dataset=dataset, by=cast(User, request.user), **fields)
        return Response(s.DatasetOutputSerializer(dataset).data)
