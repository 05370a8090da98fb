"""The runs API: list your runs, follow one, cancel it, retry a failed one."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.runs.engine import run_cancel, run_retry
from core.runs.kinds import kind_names
from core.runs.models import Run, RunState
from core.runs.queue_selectors import WAIT_WARNING_SECONDS, waiting_reason
from core.runs.selectors import run_for_user, runs_visible_to

WAITING_HELP = (
    "Why a queued run still waits, in plain words: no live worker takes its queue (naming the "
    "queue, the queues the running workers take, and the command that starts one; from the "
    "workers' heartbeats), or the broker has not accepted its message yet. Empty when it is not "
    f"queued, has waited under {WAIT_WARNING_SECONDS} s, or a live worker takes its queue (it "
    "waits behind other work)."
)


class WaitingReasonField(serializers.CharField):
    """A run's `waiting_reason`, in the runs API and in every answer that shows a run: `run`
    names the attribute holding it ("": the object is the run); no run, no reason."""

    def __init__(self, run: str = "", **kwargs: Any) -> None:
        self.run_attribute = run
        super().__init__(source="*", read_only=True, help_text=WAITING_HELP, **kwargs)

    def to_representation(self, value: Any) -> str:
        run = getattr(value, self.run_attribute) if self.run_attribute else value
        return waiting_reason(run) if isinstance(run, Run) else ""


class RunSerializer(serializers.ModelSerializer):
    percent = serializers.IntegerField(read_only=True)
    status = serializers.ChoiceField(
        choices=RunState.choices, source="state", read_only=True, help_text="Same as state."
    )
    status_text = serializers.CharField(read_only=True, help_text="The state in a page's words.")
    waiting_reason = WaitingReasonField()
    stage_timings = serializers.DictField(
        child=serializers.FloatField(), read_only=True, help_text="Seconds per stage."
    )
    result = serializers.DictField(read_only=True)

    class Meta:
        model = Run
        fields = [
            "id",
            "kind",
            "scope",
            "state",
            "status",
            "status_text",
            "waiting_reason",
            "attempt",
            "max_attempts",
            "percent",
            "done",
            "total",
            "message",
            "reason",
            "refused",
            "stage_timings",
            "result",
            "cancel_requested",
            "created_at",
            "started_at",
            "heartbeat_at",
            "finished_at",
        ]
        read_only_fields = fields


def _run_or_404(request: Request, run_id: int) -> Run:
    run = run_for_user(user=request.user, run_id=run_id)
    if run is None:
        raise Http404("No such run.")
    return run


@extend_schema(
    summary="Your runs of long work (staff: everyone's), newest first",
    parameters=[
        OpenApiParameter("state", enum=RunState.values, required=False),
        OpenApiParameter("kind", str, required=False),
    ],
)
class RunListApi(generics.ListAPIView):
    serializer_class = RunSerializer

    def get_queryset(self):
        runs = runs_visible_to(self.request.user)
        # A filter that cannot match is named, not ignored (an unknown state listed every run).
        wrong: dict[str, list[str]] = {}
        state = self.request.query_params.get("state")
        if state and state not in RunState.values:
            wrong["state"] = [f"Use one of: {', '.join(RunState.values)}."]
        kind = self.request.query_params.get("kind")
        if kind and kind not in kind_names():
            wrong["kind"] = [f"Use one of: {', '.join(kind_names())}."]
        if wrong:
            raise ValidationError(wrong)
        return runs.filter(**{k: v for k, v in (("state", state), ("kind", kind)) if v})


class RunDetailApi(APIView):
    @extend_schema(responses=RunSerializer)
    def get(self, request: Request, run_id: int) -> Response:
        """A run's state, attempt, progress and timings"""
        return Response(RunSerializer(_run_or_404(request, run_id)).data)


class RunCancelApi(APIView):
    @extend_schema(request=None, responses=RunSerializer)
    def post(self, request: Request, run_id: int) -> Response:
        """Ask a run to stop"""
        run = _run_or_404(request, run_id)
        run_cancel(run=run)
        return Response(RunSerializer(run).data)


class RunRetryApi(APIView):
    @extend_schema(request=None, responses={200: RunSerializer, 409: RunSerializer})
    def post(self, request: Request, run_id: int) -> Response:
        """Start a failed run again (409 when it has not failed)"""
        run = _run_or_404(request, run_id)
        retried = run_retry(run=run)
        return Response(RunSerializer(run).data, status=200 if retried else 409)
