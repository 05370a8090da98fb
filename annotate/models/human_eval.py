"""Human evaluation of system outputs: evaluated systems, their outputs, imported judgments,
and campaigns in which raters judge outputs (absolute Likert, or pairwise A/B).

Outputs and judgments name items by split and external id rather than by row, because the
correlation study matches them with a frozen release's items, and imports may arrive before
(or without) the dataset's own items; `item` is filled in when the dataset has the item, and
only such outputs can be shown to raters.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from annotate.models.datasets import Dataset, Item, SplitName
from annotate.models.rating import QCStatus, RatingStatus


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


class OutputCampaignMode(models.TextChoices):
    LIKERT = "likert", "Absolute (Likert) rating of one output"
    PAIRWISE = "pairwise", "Pairwise comparison of two outputs"


def _token() -> str:
    return secrets.token_urlsafe(12)


class OutputCampaign(models.Model):
    """Raters judge system outputs: one output on the Likert scale, or two side by side on the
    5-point scale "A much better … B much better" with the side of each system drawn at random."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="output_campaigns"
    )
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="output_campaigns")
    split = models.CharField(max_length=10, choices=SplitName.choices, default=SplitName.TEST)
    name = models.CharField(max_length=200)
    mode = models.CharField(
        max_length=10, choices=OutputCampaignMode.choices, default=OutputCampaignMode.LIKERT
    )
    systems = models.ManyToManyField(EvalSystem, related_name="campaigns")
    token = models.CharField(max_length=32, unique=True, default=_token)
    is_open = models.BooleanField(default=True)
    instructions = models.TextField(blank=True)
    scale_min = models.PositiveSmallIntegerField(default=1)
    scale_max = models.PositiveSmallIntegerField(default=5)
    ratings_per_unit = models.PositiveSmallIntegerField(
        default=3, validators=[MinValueValidator(1), MaxValueValidator(50)]
    )
    lease_minutes = models.PositiveSmallIntegerField(
        default=10, validators=[MinValueValidator(1), MaxValueValidator(240)]
    )
    qc_min_seconds = models.FloatField(default=2.0)
    qc_max_straightline = models.FloatField(default=0.8)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def scale(self) -> list[int]:
        if self.mode == OutputCampaignMode.PAIRWISE:
            return [1, 2, 3, 4, 5]
        return list(range(self.scale_min, self.scale_max + 1))


class OutputCampaignRater(models.Model):
    campaign = models.ForeignKey(OutputCampaign, on_delete=models.CASCADE, related_name="raters")
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="output_memberships"
    )
    qc_status = models.CharField(max_length=10, choices=QCStatus.choices, default="pending")
    qc_reasons = models.JSONField(default=list, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "rater"], name="output_rater_unique")
        ]

    def __str__(self) -> str:
        return f"{self.rater} in {self.campaign}"


class OutputSlot(models.Model):
    """One thing to judge: an item's output of `system_a` (Likert), or of a pair (pairwise)."""

    campaign = models.ForeignKey(OutputCampaign, on_delete=models.CASCADE, related_name="slots")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="output_slots")
    system_a = models.ForeignKey(EvalSystem, on_delete=models.CASCADE, related_name="+")
    system_b = models.ForeignKey(
        EvalSystem, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    wanted = models.PositiveSmallIntegerField()
    active = models.PositiveSmallIntegerField(default=0)

    class Meta:
        # Two partial constraints, since NULLs are distinct in a plain one: a Likert slot
        # (system_b NULL) would otherwise be allowed twice.
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "item", "system_a", "system_b"],
                condition=models.Q(system_b__isnull=False),
                name="output_slot_unique_pair",
            ),
            models.UniqueConstraint(
                fields=["campaign", "item", "system_a"],
                condition=models.Q(system_b__isnull=True),
                name="output_slot_unique_single",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "active"])]

    def __str__(self) -> str:
        return f"{self.item_id} {self.system_a_id}/{self.system_b_id}"


class OutputRating(models.Model):
    """A rater's judgment of a slot — or the lease that precedes it.

    Pairwise: `a_on_left` records the randomized order; `score` is what the rater pressed
    (1 = left much better … 5 = right much better) and `preference` the same from system A's
    side on −2 … +2 (positive: A better), which is what the study uses."""

    campaign = models.ForeignKey(OutputCampaign, on_delete=models.CASCADE, related_name="ratings")
    slot = models.ForeignKey(OutputSlot, on_delete=models.CASCADE, related_name="ratings")
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="output_ratings"
    )
    a_on_left = models.BooleanField(default=True)
    status = models.CharField(
        max_length=10, choices=RatingStatus.choices, default=RatingStatus.LEASED
    )
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    preference = models.FloatField(null=True, blank=True)
    counted = models.BooleanField(default=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "started_at"]
        constraints = [
            models.UniqueConstraint(fields=["slot", "rater"], name="output_rating_once"),
        ]
        indexes = [models.Index(fields=["campaign", "rater", "status"])]

    def __str__(self) -> str:
        return f"{self.rater} → {self.slot_id}: {self.score}"
