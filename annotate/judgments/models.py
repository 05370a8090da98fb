"""Human evaluation of system outputs: evaluated systems, their outputs, and imported judgments
(campaigns in which raters judge outputs are rating campaigns: `annotate.rating.models`).

Outputs and judgments name items by split and external id rather than by row, because the
correlation study matches them with a frozen release's items, and imports may arrive before
(or without) the dataset's own items; `item` is filled in when the dataset has the item, and
only such outputs can be shown to raters.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotate.datasets.models import Dataset, Item, SplitName


class SystemSource(models.TextChoices):
    FILE = "file", "Imported file"
    SUBMISSION = "submission", "Leaderboard submission"


class EvalSystem(models.Model):
    """A system whose outputs people judge (a generation system, a baseline …)."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="eval_systems")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    source = models.CharField(max_length=12, choices=SystemSource.choices, default="file")
    source_ref = models.CharField(max_length=200, blank=True, help_text="e.g. submission:12")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "name"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "name"], name="eval_system_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class SystemOutput(models.Model):
    system = models.ForeignKey(EvalSystem, on_delete=models.CASCADE, related_name="outputs")
    split = models.CharField(max_length=10, choices=SplitName.choices, default=SplitName.TEST)
    external_id = models.CharField(max_length=200)
    item = models.ForeignKey(
        Item, null=True, blank=True, on_delete=models.SET_NULL, related_name="system_outputs"
    )
    text = models.TextField()

    class Meta:
        ordering = ["system", "split", "external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["system", "split", "external_id"], name="system_output_unique_item"
            )
        ]

    def __str__(self) -> str:
        return f"{self.system}: {self.external_id}"


class JudgmentSet(models.Model):
    """Human judgments imported from files (one import), with what the import reported."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="judgment_sets")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgment_sets"
    )
    name = models.CharField(max_length=200)
    split = models.CharField(max_length=10, choices=SplitName.choices, default=SplitName.TEST)
    criteria = models.JSONField(default=list, blank=True, help_text="Criterion names.")
    scale_min = models.FloatField(default=1)
    scale_max = models.FloatField(default=5)
    report = models.JSONField(default=dict, blank=True, help_text="Counts and problems by line.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class Judgment(models.Model):
    """One judge's score of one system's output for one item on one criterion."""

    judgment_set = models.ForeignKey(
        JudgmentSet, on_delete=models.CASCADE, related_name="judgments"
    )
    judge = models.CharField(max_length=100)
    external_id = models.CharField(max_length=200)
    system = models.ForeignKey(EvalSystem, on_delete=models.CASCADE, related_name="judgments")
    criterion = models.CharField(max_length=100)
    score = models.FloatField()

    class Meta:
        ordering = ["judgment_set", "pk"]
        indexes = [models.Index(fields=["judgment_set", "criterion", "system"])]

    def __str__(self) -> str:
        return f"{self.judge} {self.system} {self.external_id}: {self.score}"


class ColumnMapping(models.Model):
    """The roles a user gave the columns of a file with a given header, and how its cells were
    split: the next file with the same header is read the same way without asking. Kept in
    the database rather than the session so that it outlives a login, reaches the API and the
    command (which have no session) and can be looked at and removed in the admin."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="column_mappings"
    )
    file = models.CharField(max_length=12, help_text="contexts, references, systems, judgments")
    header_hash = models.CharField(max_length=64, help_text="SHA-256 of the header's names")
    header = models.JSONField(default=list, help_text="The names (the first 100).")
    roles = models.JSONField(default=list, help_text="The role of each column, in order.")
    options = models.JSONField(default=dict, blank=True, help_text="separators, original")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["owner", "-updated_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "file", "header_hash"], name="column_mapping_unique_header"
            )
        ]

    def __str__(self) -> str:
        return f"{self.owner}: {self.file} ({', '.join(self.header[:5])})"


class ExternalMetric(models.Model):
    """A metric computed outside the app (an LLM judge, COMET, BERTScore …) whose per-response
    scores were uploaded to a judgment set, so a study meta-evaluates it beside the built-in
    metrics. Scores are rows (`ExternalScore`) like the judgments they stand beside: a study
    reads them by set and name in one query, and the admin and the database check each one.

    Without a judgment set the metric was uploaded to a leaderboard by its owner: the scoring
    side links it (`scoring.leaderboards.models.LeaderboardMetric`), since this app may not
    name a leaderboard; its scores are of the submissions' evaluated systems."""

    judgment_set = models.ForeignKey(
        JudgmentSet,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="external_metrics",
        help_text="Empty: uploaded to a leaderboard (see its leaderboard link).",
    )
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, help_text="How it was computed: its signature.")
    higher_is_better = models.BooleanField(default=True)
    report = models.JSONField(default=dict, blank=True, help_text="What the upload found.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["judgment_set", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["judgment_set", "name"], name="external_metric_unique_name"
            )
        ]

    def __str__(self) -> str:
        return f"external: {self.name}"


class ExternalScore(models.Model):
    """One external metric's score of one system's response to one item."""

    metric = models.ForeignKey(ExternalMetric, on_delete=models.CASCADE, related_name="scores")
    system = models.ForeignKey(EvalSystem, on_delete=models.CASCADE, related_name="external_scores")
    external_id = models.CharField(max_length=200)
    score = models.FloatField()

    class Meta:
        ordering = ["metric", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["metric", "system", "external_id"], name="external_score_unique_response"
            )
        ]

    def __str__(self) -> str:
        return f"{self.metric} {self.system} {self.external_id}: {self.score}"
