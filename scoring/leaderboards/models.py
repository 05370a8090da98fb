"""Leaderboards on frozen releases, teams, submissions and their scores."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from annotate.datasets.models import SplitName
from annotate.judgments.models import ExternalMetric
from annotate.releases.models import Release
from core.runs.models import Run, RunState

MIN_UPLOAD_BYTES = 1024
# The column is a PositiveIntegerField: 2 GB fits every database's 32-bit signed integer.
MAX_UPLOAD_BYTES = 2**31 - 1
MAX_COUNTED_PER_TEAM = 20
MAX_QUOTA = 100_000


class Leaderboard(models.Model):
    """Scores of submissions on one split of a frozen release, with one metric configuration."""

    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="leaderboards")
    split = models.CharField(max_length=10, choices=SplitName.choices, default=SplitName.DEV)
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="leaderboards"
    )
    primary_metric = models.CharField(max_length=20, default="dbleu")
    # Options of the primary metric (order, tokenizer, definition …), checked by the registry.
    metric_options = models.JSONField(default=dict, blank=True)
    companion_metrics = models.JSONField(
        default=list, blank=True, help_text="Registry names of the metrics shown beside it."
    )
    is_public = models.BooleanField(default=True)
    is_open = models.BooleanField(default=True, help_text="Accepting submissions.")
    daily_quota = models.PositiveIntegerField(default=5, validators=[MinValueValidator(1)])
    total_quota = models.PositiveIntegerField(default=100, validators=[MinValueValidator(1)])
    max_upload_bytes = models.PositiveIntegerField(
        default=200 * 1024 * 1024,
        validators=[MinValueValidator(MIN_UPLOAD_BYTES), MaxValueValidator(MAX_UPLOAD_BYTES)],
        help_text="Uploads above this size are refused before they are read.",
    )
    # How many of its submissions a team may pick to count on a test leaderboard: one by
    # default, the usual rule of shared tasks ("one primary run per team").
    counted_per_team = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(MAX_COUNTED_PER_TEAM)]
    )
    # Significance worked out when a score lands (services/rank_groups.py), so a page runs no
    # bootstrap: [{"ranked": [[submission id, score id], …] best first, "groups": […],
    # "p": every pair's raw p-value}] for the owner's view of the board and the public's.
    # A view matching neither computes (selectors/leaderboard_table.py).
    rank_groups = models.JSONField(default=list, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def metrics(self) -> list[str]:
        """The primary metric first, then the companions (no duplicates)."""
        return [self.primary_metric] + [
            m for m in self.companion_metrics if m != self.primary_metric
        ]


class Team(models.Model):
    name = models.CharField(max_length=100, unique=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="teams")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="teams_created",
    )
    # The team's invitation link (empty: none). A member renews it to revoke the old one.
    invitation_token = models.CharField(max_length=64, blank=True, db_index=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class SubmissionStatus(models.TextChoices):
    # An upload is checked before it is stored, so a stored submission starts queued. The stored
    # "finished" is a run's "succeeded": pages and the API's `state` say it in the runs' words
    # (Submission.state); the stored value stays, so that no rolling deploy has old workers
    # writing a value new code no longer reads.
    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Listing(models.TextChoices):
    """Whether a submission is on the board, apart from its scoring status."""

    LISTED = "listed"
    HIDDEN = "hidden", "Hidden by the leaderboard's owner"
    WITHDRAWN = "withdrawn", "Withdrawn by its team"


class Submission(models.Model):
    ACTIVE = (SubmissionStatus.QUEUED, SubmissionStatus.RUNNING)

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="submissions"
    )
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="submissions")
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="submissions"
    )
    file = models.FileField(upload_to="submissions/%Y/%m/")
    format = models.CharField(max_length=10, default="text")
    n_lines = models.PositiveIntegerField(default=0)
    method = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    url = models.URLField(blank=True, help_text="Paper or code.")
    is_baseline = models.BooleanField(default=False)
    is_public = models.BooleanField(default=True)
    # On a test leaderboard each team picks the submissions that count.
    counts = models.BooleanField(default=False)
    status = models.CharField(
        max_length=10, choices=SubmissionStatus.choices, default=SubmissionStatus.QUEUED
    )
    listing = models.CharField(max_length=10, choices=Listing.choices, default=Listing.LISTED)
    # Why it was hidden or withdrawn, shown to its team.
    listing_reason = models.CharField(max_length=500, blank=True)
    listing_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    listing_changed_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    # Quota accounting: charged when a worker starts scoring it (a submission waiting out a
    # broker outage costs nothing yet, though it counts against the quota while it waits); a
    # failure caused by the platform gives the attempt back.
    charged = models.BooleanField(default=False)
    # The scoring run: attempts, heartbeat, progress and timings live there (core.runs).
    run = models.OneToOneField(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="submission"
    )
    submitted_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-submitted_at"]
        indexes = [
            models.Index(fields=["leaderboard", "status"]),
            models.Index(fields=["team", "submitted_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.team}: {self.method} ({self.status})"

    @property
    def state(self) -> str:
        """The status in the words of every run (core.runs.RunState): the scoring run's state,
        which the run's hooks copy into `status` in the same transaction."""
        return RunState.SUCCEEDED.value if self.status == SubmissionStatus.FINISHED else self.status

    def get_state_display(self) -> str:
        state = self.state
        return RunState(state).label if state in RunState.values else state.capitalize()

    @property
    def progress(self) -> int:
        if self.status == SubmissionStatus.FINISHED:
            return 100
        return self.run.percent if self.run is not None else 0


class Score(models.Model):
    """One metric's score of a submission; the signature says exactly how it was computed."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="scores")
    metric = models.CharField(max_length=20)
    signature = models.CharField(max_length=300)
    score = models.FloatField()
    ci_low = models.FloatField(null=True, blank=True)
    ci_high = models.FloatField(null=True, blank=True)
    extras = models.JSONField(default=dict, blank=True)
    # Per-item sufficient statistics (numpy .npy), so intervals and comparisons never
    # tokenize again.
    stats_file = models.CharField(max_length=300, blank=True)
    # A weighted metric's statistics as a function of the weights (the library's WeightProfile)
    # and the scores of the two-level bootstrap (items, and each reference's ratings) drawn from
    # it: the interval with rater uncertainty, and, stacked with the board's other entries
    # (their draws are the same), each entry's rank distribution.
    profile_file = models.CharField(max_length=300, blank=True)
    replicates_file = models.CharField(max_length=300, blank=True)
    rater_ci_low = models.FloatField(null=True, blank=True)
    rater_ci_high = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["submission", "metric"]
        constraints = [
            models.UniqueConstraint(fields=["submission", "signature"], name="score_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.metric} {self.score:.2f}"

    # What the replicates run said of the raters' noise (services/uncertainty.py): the score
    # corrected for it, the interval over raters alone, the model's facts, or why not.
    @property
    def rater(self) -> dict:
        found = (self.extras or {}).get("rater")
        return found if isinstance(found, dict) else {}

    @property
    def corrected_score(self) -> float | None:
        return self.rater.get("estimate")

    @property
    def rater_unavailable(self) -> str:
        return str(self.rater.get("unavailable", ""))

    @property
    def ratings_per_reference(self) -> float | None:
        return (self.rater.get("model") or {}).get("ratings_per_reference")

    @property
    def raters(self) -> int | None:
        """Raters behind the model (0: the release does not say who gave each rating)."""
        return (self.rater.get("model") or {}).get("raters")

    @property
    def rater_offset_sd(self) -> float | None:
        return (self.rater.get("model") or {}).get("rater_offset_sd")


class LeaderboardMetric(models.Model):
    """A metric computed elsewhere (an LLM judge, COMET …) whose per-response scores the board's
    owner uploaded: the judgments' `ExternalMetric` and its scores, held by this board. A link
    rather than a field of the metric, because annotate may not name a leaderboard; a study of
    an output campaign on the board's submissions meta-evaluates it."""

    leaderboard = models.ForeignKey(
        Leaderboard, on_delete=models.CASCADE, related_name="external_metrics"
    )
    metric = models.OneToOneField(
        ExternalMetric, on_delete=models.CASCADE, related_name="leaderboard_link"
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["leaderboard", "metric__name"]

    def __str__(self) -> str:
        return f"{self.leaderboard}: {self.metric}"
