from __future__ import annotations

from django.conf import settings
from django.db import models


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class Job(models.Model):
    """A long piece of work run by a Celery worker, with progress that pages and the API show.

    Mining, exports, scoring and correlation studies all report through this one table, so a
    single progress bar and a single `/api/v1/jobs/<id>/` endpoint serve them all.
    """

    ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)

    kind = models.CharField(max_length=50, help_text="What the job does, e.g. mining.")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="jobs"
    )
    dataset = models.ForeignKey(
        "annotate.Dataset", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    cancel_requested = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"

    @property
    def percent(self) -> int:
        if self.status == JobStatus.FINISHED:
            return 100
        return int(100 * self.done / self.total) if self.total else 0
