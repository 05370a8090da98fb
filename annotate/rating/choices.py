"""The choices of the rating engine's models (kept apart so that models.py stays one screen
per model)."""

from __future__ import annotations

from django.db import models

DEFAULT_ANCHORS = ["Very poor", "Poor", "Acceptable", "Good", "Very good"]


class CampaignStatus(models.TextChoices):
    """draft → open ⇄ complete → closed → open. Open and complete follow the ratings (see
    services/lifecycle.py); the owner opens, closes and reopens."""

    DRAFT = "draft"
    OPEN = "open"
    COMPLETE = "complete"
    CLOSED = "closed"


class Subject(models.TextChoices):
    REFERENCES = "references", "Candidate references (their ratings become weights)"
    OUTPUTS = "outputs", "System outputs (human evaluation)"


class Mode(models.TextChoices):
    LIKERT = "likert", "Absolute (Likert) rating of one text"
    PAIRWISE = "pairwise", "Pairwise comparison of two outputs"


PAIRWISE_ANCHORS = ["A much better", "A better", "About the same", "B better", "B much better"]


class Assignment(models.TextChoices):
    UNIFORM = "uniform", "Uniform: the reference with the fewest ratings next"
    ADAPTIVE = "adaptive", "Adaptive: where the leaderboards' close pairs need it most"


class QCStatus(models.TextChoices):
    PENDING = "pending"
    PASSED = "passed"
    FAILED = "failed"


class RatingKind(models.TextChoices):
    NORMAL = "normal"
    REPEAT = "repeat", "Repeat (control)"
    BAD_REFERENCE = "bad_reference", "Degraded text (control)"


class RatingStatus(models.TextChoices):
    LEASED = "leased"
    DONE = "done"
    SKIPPED = "skipped"
    FLAGGED = "flagged"


class Flag(models.TextChoices):
    OFFENSIVE = "offensive"
    NOT_ENGLISH = "not_english", "Not in the dataset's language"
    BROKEN = "broken", "Broken or unreadable"


# What the owner sets for how a campaign hands out work and checks its raters (field names):
# the campaign form and the API's campaign shapes offer the same ones, in this order. The
# assignment settings may also change while the campaign runs.
ASSIGNMENT_SETTINGS = ("assignment", "uniform_share", "rating_budget")
CAMPAIGN_SETTINGS = (
    "ratings_per_unit",
    "control_rate",
    "lease_minutes",
    "ratings_per_rater",
    "extra_ratings_on_disagreement",
    "disagreement_sd",
    "qc_min_seconds",
    "qc_max_straightline",
    "qc_alpha",
    "qc_min_controls",
    "qc_max_repeat_difference",
    *ASSIGNMENT_SETTINGS,
)
