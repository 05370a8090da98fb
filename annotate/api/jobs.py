"""Progress of long jobs (mining, exports, scoring, studies) and cancelling them."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate.models import Job
from annotate.selectors.jobs import job_get_for_user
from annotate.services.jobs import job_cancel


class JobOutputSerializer(serializers.ModelSerializer):
    percent = serializers.IntegerField(read_only=True)
    dataset = serializers.CharField(source="dataset.slug", default=None, read_only=True)

    class Meta:
        model = Job
        fields = [
            "id", "kind", "dataset", "status", "percent", "done", "total", "message", "result",
            "cancel_requested", "created_at", "started_at", "finished_at",
        ]  # fmt: skip


class JobDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=JobOutputSerializer, summary="A job's status and progress")
    def get(self, request: Request, job_id: int) -> Response:
        job = job_get_for_user(user=request.user, job_id=job_id)
        return Response(JobOutputSerializer(job).data)


class JobCancelApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=JobOutputSerializer, summary="Ask a job to stop")
    def post(self, request: Request, job_id: int) -> Response:
        job = job_get_for_user(user=request.user, job_id=job_id)
        job_cancel(job=job)
        job.refresh_from_db()
        return Response(JobOutputSerializer(job).data)
