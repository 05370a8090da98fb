"""The Run: one unit of long work, whatever app started it."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class RunState(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Run(models.Model):
    """Long work done by a Celery worker: its state, attempt, heartbeat, progress and timings.

    `attempt` fences the writers: a task carries the attempt it was sent for, and every write
    of the engine (claim, heartbeat, progress, finish) is conditional on it, so a worker of an
    older attempt that wakes up late changes nothing. `dispatched_at` is the outbox: null means
    the broker has not accepted this attempt's message yet, and the sweep sends it again.
    """

    ACTIVE = (RunState.QUEUED, RunState.RUNNING)
    ENDED = (RunState.SUCCEEDED, RunState.FAILED, RunState.CANCELLED)

    kind = models.CharField(max_length=50, help_text="What the run does, e.g. scoring.")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs"
    )
    # What the run works on, as its app names it ("dataset:12", "submission:40"): the engine
    # imports no app, so it keeps a key rather than a foreign key.
    scope = models.CharField(max_length=100, blank=True, db_index=True)
    state = models.CharField(max_length=10, choices=RunState.choices, default=RunState.QUEUED)
    attempt = models.PositiveSmallIntegerField(default=1)
    max_attempts = models.PositiveSmallIntegerField(default=3)
    done = models.PositiveBigIntegerField(default=0)
    total = models.PositiveBigIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True, help_text="What it is doing now.")
    reason = models.TextField(blank=True, help_text="Why it failed or was retried.")
    refused = models.BooleanField(
        default=False, help_text="It failed because of its input, not of the platform."
    )
    # {"stage": seconds} of the latest attempt, in the order the stages ran.
    stage_timings = models.JSONField(default=dict, blank=True)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    cancel_requested = models.BooleanField(default=False)
    parts = models.PositiveIntegerField(
        default=0, help_text="Parts of the attempt's chord (0: the attempt runs in one task)."
    )
    parts_sent_at = models.DateTimeField(
        null=True, blank=True, help_text="When the attempt's chord sent its parts."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["state", "heartbeat_at"]),
            models.Index(fields=["state", "dispatched_at"]),
            models.Index(fields=["owner", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.state}, attempt {self.attempt})"

    @property
    def percent(self) -> int:
        if self.state == RunState.SUCCEEDED:
            return 100
        return min(99, int(100 * self.done / self.total)) if self.total else 0

    @property
    def is_active(self) -> bool:
        return self.state in self.ACTIVE

    @property
    def status_text(self) -> str:
        """The state in the words a page shows."""
        if self.state == RunState.QUEUED:
            return "Waiting for a worker"
        if self.state == RunState.RUNNING and self.attempt > 1:
            return f"Running (attempt {self.attempt} of {self.max_attempts})"
        return self.get_state_display()


class RunStep(models.Model):
    """A step of an attempt that runs apart from its body: a part of a chord, or the step that
    ends it. While parts wait in the queue the attempt lives on its lease; once a part runs, its
    own heartbeat says whether its worker is alive, so a part lost with a killed worker is found
    within the grace instead of at the end of the lease."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="steps")
    attempt = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=100)
    heartbeat_at = models.DateTimeField()
    finished = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "attempt", "name"], name="run_step_unique")
        ]
        indexes = [models.Index(fields=["finished", "heartbeat_at"])]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.attempt} {self.name}"


class Worker(models.Model):
    """A Celery worker as its own heartbeat describes it: the queues it consumes, and since when
    it has held no task. A worker that stops beating is dead (SIGKILL, a lost machine); one that
    stops gracefully removes its row (its unstarted messages go back to the broker)."""

    hostname = models.CharField(max_length=255, unique=True)
    queues = models.JSONField(default=list)
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField(db_index=True)
    idle_since = models.DateTimeField(
        null=True, blank=True, help_text="Since when it has held no task (empty: busy)."
    )

    def __str__(self) -> str:
        return self.hostname
