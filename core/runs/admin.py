from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from core.runs.engine import run_cancel, run_retry
from core.runs.models import Run, RunStep, Worker


class RunStepInline(admin.TabularInline):
    """The steps of a chord's attempt: which parts ran, beat and finished."""

    model = RunStep
    extra = 0
    can_delete = False
    fields = readonly_fields = ("attempt", "name", "heartbeat_at", "finished")

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "kind",
        "scope",
        "owner",
        "state",
        "attempt",
        "max_attempts",
        "done",
        "total",
        "created_at",
        "heartbeat_at",
        "finished_at",
    )
    list_filter = ("state", "kind", "refused")
    search_fields = ("scope", "owner__username", "reason", "message")
    list_select_related = ("owner",)
    raw_id_fields = ("owner",)
    readonly_fields = [field.name for field in Run._meta.fields]
    actions = ("cancel_runs", "retry_runs")
    inlines = (RunStepInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a run starts through the engine (run_create), for the work it names

    @admin.action(description="Cancel the selected runs")
    def cancel_runs(self, request: HttpRequest, queryset: QuerySet[Run]) -> None:
        count = sum(run_cancel(run=run) for run in queryset.filter(state__in=Run.ACTIVE))
        self.message_user(request, f"Asked {count} runs to stop.", messages.SUCCESS)

    @admin.action(description="Retry the selected failed runs")
    def retry_runs(self, request: HttpRequest, queryset: QuerySet[Run]) -> None:
        count = sum(run_retry(run=run) for run in queryset)
        self.message_user(request, f"Retried {count} failed runs.", messages.SUCCESS)


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    """The workers as their heartbeats describe them (read-only: the workers write them)."""

    list_display = ("hostname", "queues", "started_at", "beat_at", "idle_since")
    search_fields = ("hostname",)
    readonly_fields = [field.name for field in Worker._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
