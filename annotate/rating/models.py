"""Rating campaigns: one engine for everything people rate.

A campaign rates one kind of unit: a candidate reference of an item (its ratings become the
reference's weight), or a system's output for an item on a Likert scale, or two systems' outputs
side by side (pairwise). Assignment works on `Slot` rows, one per unit, whose `active` count is
ratings that count plus live leases; the next unit for a rater is a slot below its `wanted`
count, locked with SKIP LOCKED so concurrent raters never take the same last place.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from annotate.datasets.models import Dataset, Item, Reference, Split
from annotate.judgments.models import EvalSystem
from annotate.rating.choices import (
    DEFAULT_ANCHORS,
    PAIRWISE_ANCHORS,
    Assignment,
    CampaignStatus,
    Flag,
    Mode,
    QCStatus,
    RatingKind,
    RatingStatus,
    Subject,
)


def _campaign_token() -> str:
    return secrets.token_urlsafe(12)


def _default_anchors() -> list[str]:
    return list(DEFAULT_ANCHORS)


class Campaign(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="campaigns"
    )
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="campaigns")
    split = models.ForeignKey(
        Split, null=True, blank=True, on_delete=models.CASCADE, help_text="Empty: every split."
    )
    name = models.CharField(max_length=200)
    subject = models.CharField(
        max_length=10, choices=Subject.choices, default=Subject.REFERENCES, editable=False
    )
    mode = models.CharField(
        max_length=10, choices=Mode.choices, default=Mode.LIKERT, editable=False
    )
    systems = models.ManyToManyField(
        EvalSystem, blank=True, related_name="campaigns", help_text="Outputs: the systems rated."
    )
    token = models.CharField(max_length=32, unique=True, default=_campaign_token)
    status = models.CharField(
        max_length=10, choices=CampaignStatus.choices, default=CampaignStatus.OPEN
    )
    status_changed_at = models.DateTimeField(null=True, blank=True, editable=False)
    instructions = models.TextField(blank=True)
    scale_min = models.PositiveSmallIntegerField(default=1)
    scale_max = models.PositiveSmallIntegerField(default=5)
    anchors = models.JSONField(
        default=_default_anchors, blank=True, help_text="Labels of the scale points, low to high."
    )
    ratings_per_unit = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Ratings wanted for each reference, output or pair of outputs.",
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
        help_text="Share of quality-control items (degraded texts and repeats) mixed in.",
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
        default=0.1, help_text="Mann–Whitney: degraded texts must score lower at this level."
    )
    qc_min_controls = models.PositiveSmallIntegerField(
        default=3,
        help_text="Degraded texts a rater must have rated before a verdict (0: no such check).",
    )
    qc_max_repeat_difference = models.FloatField(
        default=1.0, help_text="Largest mean absolute difference between a rating and its repeat."
    )
    # How the next reference is chosen (services/assignment.py; the math in adaptive_math.py).
    assignment = models.CharField(
        max_length=10, choices=Assignment.choices, default=Assignment.UNIFORM
    )
    uniform_share = models.FloatField(
        default=0.25,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Adaptive: share of assignments still made uniformly (unbiased estimates of "
        "every reference, including those no leaderboard needs yet).",
    )
    rating_budget = models.PositiveIntegerField(
        default=0,
        help_text="Counted ratings after which the campaign is complete (0: no budget; each "
        "unit still gets at most its wanted ratings).",
    )
    # Adaptive: a = σ²/τ² of the rating model, and when and from what the slots' sensitivities
    # were last worked out (services/adaptive.py).
    adaptive_a = models.FloatField(default=1.0, editable=False)
    priorities_refreshed_at = models.DateTimeField(null=True, blank=True, editable=False)
    priorities_summary = models.JSONField(default=dict, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scale_min__lt=models.F("scale_max")),
                name="campaign_scale_min_lt_max",
            ),
            models.CheckConstraint(
                condition=models.Q(subject="outputs") | models.Q(mode="likert"),
                name="campaign_pairwise_rates_outputs",
            ),
            models.CheckConstraint(
                condition=models.Q(subject="references") | models.Q(assignment="uniform"),
                name="campaign_adaptive_rates_references",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def takes_ratings(self) -> bool:
        """Open or complete: raters may join and be given work (a complete campaign reopens
        when someone can rate more)."""
        return self.status in (CampaignStatus.OPEN, CampaignStatus.COMPLETE)

    @property
    def scale(self) -> list[int]:
        return list(range(self.scale_min, self.scale_max + 1))

    @property
    def split_name(self) -> str:
        """The split rated ("" for every split; a campaign on outputs always names one)."""
        return self.split.name if self.split is not None else ""

    @property
    def rates_references(self) -> bool:
        return self.subject == Subject.REFERENCES

    @property
    def pairwise(self) -> bool:
        return self.mode == Mode.PAIRWISE

    @property
    def adaptive(self) -> bool:
        return self.assignment == Assignment.ADAPTIVE

    @property
    def mixes_degraded_texts(self) -> bool:
        """Degraded texts are among the controls (a pair has no single text to spoil)."""
        return self.control_rate > 0 and not self.pairwise

    @property
    def labels(self) -> list[str]:
        """One label per point of the scale ("" where none is given)."""
        if self.pairwise:
            return list(PAIRWISE_ANCHORS)
        anchors = list(self.anchors or [])
        return anchors if len(anchors) == len(self.scale) else [""] * len(self.scale)


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


class Slot(models.Model):
    """One unit to rate: a reference of `item`, or `system_a`'s output for it (Likert), or the
    outputs of `system_a` and `system_b` (pairwise)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="slots")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="slots")
    reference = models.ForeignKey(
        Reference, null=True, blank=True, on_delete=models.CASCADE, related_name="slots"
    )
    system_a = models.ForeignKey(
        EvalSystem, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    system_b = models.ForeignKey(
        EvalSystem, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    wanted = models.PositiveSmallIntegerField()
    active = models.PositiveSmallIntegerField(default=0)
    # Adaptive assignment: how much the leaderboards' close pairs depend on this reference's
    # weight (adaptive_math.py); the next rating's value divides it by (a + n)(a + n + 1).
    sensitivity = models.FloatField(default=0.0)

    class Meta:
        # Partial constraints, since NULLs are distinct in a plain one: a Likert output slot
        # (system_b NULL) would otherwise be allowed twice.
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "reference"],
                condition=models.Q(reference__isnull=False),
                name="slot_unique_reference",
            ),
            models.UniqueConstraint(
                fields=["campaign", "item", "system_a"],
                condition=models.Q(system_a__isnull=False, system_b__isnull=True),
                name="slot_unique_output",
            ),
            models.UniqueConstraint(
                fields=["campaign", "item", "system_a", "system_b"],
                condition=models.Q(system_b__isnull=False),
                name="slot_unique_pair",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(reference__isnull=False, system_a__isnull=True, system_b__isnull=True)
                    | models.Q(reference__isnull=True, system_a__isnull=False)
                ),
                name="slot_rates_a_reference_or_outputs",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "active"])]

    def __str__(self) -> str:
        unit = self.reference_id or f"{self.system_a_id}/{self.system_b_id or '-'}"
        return f"{self.item_id} {unit}: {self.active}/{self.wanted}"


class Rating(models.Model):
    """One rater's judgement of one slot (or a control built on it) — or the lease before it.

    Pairwise: `a_on_left` records the randomized order; `score` is what the rater pressed
    (1 = left much better … 5 = right much better) and `preference` the same from system A's
    side on −2 … +2 (positive: A better), which results and studies use."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="ratings")
    slot = models.ForeignKey(Slot, on_delete=models.CASCADE, related_name="ratings")
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    kind = models.CharField(max_length=15, choices=RatingKind.choices, default=RatingKind.NORMAL)
    # A degraded control shows this text instead of the slot's; `donor_item` gave the foreign
    # part (another item's reference or output).
    control_text = models.TextField(blank=True)
    donor_item = models.ForeignKey(
        Item, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    a_on_left = models.BooleanField(default=True)
    status = models.CharField(
        max_length=10, choices=RatingStatus.choices, default=RatingStatus.LEASED
    )
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    preference = models.FloatField(null=True, blank=True)
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
            # A rater never rates the same unit twice — except as a deliberate control.
            models.UniqueConstraint(
                fields=["slot", "rater"],
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
            models.Index(fields=["slot", "status"]),
        ]

    def __str__(self) -> str:
        return f"{self.rater} → {self.slot_id}: {self.score}"

    @property
    def seconds(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


class WeightStatistics(models.Model):
    """A reference's weight in [-1, +1] and the statistics of the counted ratings it comes from:
    a campaign's live Weight, and the copy of it that a release freezes (ReleaseReference)."""

    n = models.PositiveIntegerField(default=0)
    mean = models.FloatField(null=True, blank=True)
    sd = models.FloatField(null=True, blank=True)
    weight = models.FloatField(null=True, blank=True)
    ci_low = models.FloatField(null=True, blank=True)
    ci_high = models.FloatField(null=True, blank=True)
    z_weight = models.FloatField(
        null=True, blank=True, help_text="The same from per-rater z-normalised scores."
    )

    class Meta:
        abstract = True

    def statistics(self) -> dict[str, float | int | None]:
        """The values of these fields by name (what a release copies of a campaign's weight)."""
        return {name: getattr(self, name) for name in WEIGHT_STATISTICS}


# Their names, read once: a freeze copies them for every reference of a release.
WEIGHT_STATISTICS = tuple(field.name for field in WeightStatistics._meta.fields)


class Weight(WeightStatistics):
    """A reference's weight from its counted ratings in one campaign."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="weights")
    reference = models.ForeignKey(Reference, on_delete=models.CASCADE, related_name="weights")
    # The counted scores, in rating order, that n…z_weight were computed from ("5,3,4"; "" none;
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
