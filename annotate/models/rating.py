"""Rating campaigns: who rates which candidate reference, the ratings, and the weights they give.

Assignment works on `ReferenceSlot` rows, one per (campaign, reference), whose `active` count is
ratings that count plus live leases; the next reference for a rater is a slot below its `wanted`
count, locked with SKIP LOCKED so concurrent raters never take the same last place.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from annotate.models.datasets import Dataset, Reference, Split

DEFAULT_ANCHORS = ["Very poor", "Poor", "Acceptable", "Good", "Very good"]


def _campaign_token() -> str:
    return secrets.token_urlsafe(12)


def _default_anchors() -> list[str]:
    return list(DEFAULT_ANCHORS)


class CampaignStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    PAUSED = "paused", "Paused"
    CLOSED = "closed", "Closed"


class Campaign(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="campaigns"
    )
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="campaigns")
    split = models.ForeignKey(
        Split, null=True, blank=True, on_delete=models.CASCADE, help_text="Empty: every split."
    )
    name = models.CharField(max_length=200)
    token = models.CharField(max_length=32, unique=True, default=_campaign_token)
    status = models.CharField(
        max_length=10, choices=CampaignStatus.choices, default=CampaignStatus.ACTIVE
    )
    instructions = models.TextField(blank=True)
    scale_min = models.PositiveSmallIntegerField(default=1)
    scale_max = models.PositiveSmallIntegerField(default=5)
    anchors = models.JSONField(
        default=_default_anchors, blank=True, help_text="Labels of the scale points, low to high."
    )
    ratings_per_reference = models.PositiveSmallIntegerField(
        default=3, validators=[MinValueValidator(1), MaxValueValidator(50)]
    )
    extra_ratings_on_disagreement = models.PositiveSmallIntegerField(
        default=2, validators=[MaxValueValidator(20)]
    )
    disagreement_sd = models.FloatField(
        default=1.25, help_text="A reference whose ratings' SD reaches this gets extra ratings."
    )
    lease_minutes = models.PositiveSmallIntegerField(
        default=10, validators=[MinValueValidator(1), MaxValueValidator(240)]
    )
    control_rate = models.FloatField(
        default=0.1,
        validators=[MinValueValidator(0.0), MaxValueValidator(0.5)],
        help_text="Share of quality-control items (bad references and repeats) mixed in.",
    )
    ratings_per_rater = models.PositiveIntegerField(
        default=20, help_text="Ratings after which a crowd rater gets a completion code; 0: none."
    )
    # Quality-control thresholds.
    qc_min_seconds = models.FloatField(
        default=2.0, help_text="Median seconds per rating, at least."
    )
    qc_max_straightline = models.FloatField(
        default=0.8, help_text="Largest share of ratings that may repeat the previous score."
    )
    qc_alpha = models.FloatField(
        default=0.1, help_text="Mann–Whitney: bad references must score lower at this level."
    )
    qc_min_controls = models.PositiveSmallIntegerField(
        default=3, help_text="Bad references a rater must have rated before a verdict."
    )
    qc_max_repeat_difference = models.FloatField(
        default=1.0, help_text="Largest mean absolute difference between a rating and its repeat."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scale_min__lt=models.F("scale_max")),
                name="campaign_scale_min_lt_max",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def scale(self) -> list[int]:
        return list(range(self.scale_min, self.scale_max + 1))


class QCStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    PASSED = "passed", "Passed"
    FAILED = "failed", "Failed"


class CampaignRater(models.Model):
    """A rater's membership of a campaign, with the quality-control verdict."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="raters")
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_memberships"
    )
    crowd_id = models.CharField(max_length=100, blank=True)
    qc_status = models.CharField(max_length=10, choices=QCStatus.choices, default=QCStatus.PENDING)
    qc_reasons = models.JSONField(default=list, blank=True)
    qc_details = models.JSONField(default=dict, blank=True)
    qc_checked_at = models.DateTimeField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "joined_at"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "rater"], name="campaign_rater_unique")
        ]

    def __str__(self) -> str:
        return f"{self.rater} in {self.campaign}"


class ReferenceSlot(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="slots")
    reference = models.ForeignKey(Reference, on_delete=models.CASCADE, related_name="slots")
    wanted = models.PositiveSmallIntegerField()
    active = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "reference"], name="slot_unique"),
        ]
        indexes = [models.Index(fields=["campaign", "active"])]

    def __str__(self) -> str:
        return f"{self.reference_id}: {self.active}/{self.wanted}"


class RatingKind(models.TextChoices):
    NORMAL = "normal", "Normal"
    REPEAT = "repeat", "Repeat (control)"
    BAD_REFERENCE = "bad_reference", "Bad reference (control)"


class RatingStatus(models.TextChoices):
    LEASED = "leased", "Leased"
    DONE = "done", "Done"
    SKIPPED = "skipped", "Skipped"
    FLAGGED = "flagged", "Flagged"


class Flag(models.TextChoices):
    OFFENSIVE = "offensive", "Offensive"
    NOT_ENGLISH = "not_english", "Not in the dataset's language"
    BROKEN = "broken", "Broken or unreadable"


class Rating(models.Model):
    """One rater's judgement of one candidate (or control) — or the lease that precedes it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="ratings")
    reference = models.ForeignKey(Reference, on_delete=models.CASCADE, related_name="ratings")
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    kind = models.CharField(max_length=15, choices=RatingKind.choices, default=RatingKind.NORMAL)
    # A bad reference shows this text instead of the reference's; `donor` gave the foreign part.
    control_text = models.TextField(blank=True)
    donor = models.ForeignKey(
        Reference, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(
        max_length=10, choices=RatingStatus.choices, default=RatingStatus.LEASED
    )
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    flag = models.CharField(max_length=15, choices=Flag.choices, blank=True)
    counted = models.BooleanField(
        default=True, help_text="False once quality control has excluded the rater."
    )
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "started_at"]
        constraints = [
            # A rater never rates the same reference twice — except as a deliberate repeat.
            models.UniqueConstraint(
                fields=["campaign", "reference", "rater"],
                condition=models.Q(kind="normal"),
                name="rating_once_per_rater",
            ),
            models.CheckConstraint(
                condition=models.Q(status="done", score__isnull=False) | ~models.Q(status="done"),
                name="rating_done_has_score",
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "rater", "status"]),
            models.Index(fields=["campaign", "status", "lease_expires_at"]),
            models.Index(fields=["campaign", "reference", "status"]),
        ]

    def __str__(self) -> str:
        return f"{self.rater} → {self.reference_id}: {self.score}"

    @property
    def shown_text(self) -> str:
        return self.control_text or self.reference.text

    @property
    def seconds(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


class Weight(models.Model):
    """A reference's weight in [-1, +1] from its counted ratings in one campaign."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="weights")
    reference = models.ForeignKey(Reference, on_delete=models.CASCADE, related_name="weights")
    n = models.PositiveIntegerField(default=0)
    mean = models.FloatField(null=True, blank=True)
    sd = models.FloatField(null=True, blank=True)
    weight = models.FloatField(null=True, blank=True)
    ci_low = models.FloatField(null=True, blank=True)
    ci_high = models.FloatField(null=True, blank=True)
    z_weight = models.FloatField(
        null=True, blank=True, help_text="The same from per-rater z-normalised scores."
    )
    # The counted scores, in rating order, that n…ci_high were computed from ("5,3,4"; "" none;
    # NULL: never computed, hence not blank). A recompute skips a reference whose ratings still
    # read the same, whatever changed them: a rating, quality control, a deleted rater, or a
    # concurrent rater's write that missed another's rating.
    scores_seen = models.TextField(null=True, blank=True, editable=False)  # noqa: DJ001
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "reference"], name="weight_unique"),
            models.CheckConstraint(
                condition=models.Q(weight__gte=-1, weight__lte=1) | models.Q(weight__isnull=True),
                name="weight_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.reference_id}: {self.weight}"
