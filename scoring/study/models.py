"""Correlation studies: a dataset's weighted references, a human evaluation, the stored result.

The references and their weights come from a frozen release, from a rating campaign's live
weights, or — when nobody rated them — every reference counts +1 (plain multi-reference
metrics). The choice is stored here and stated on the result.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.conf import settings
from django.db import models

from annotate.datasets.models import Dataset, SplitName
from annotate.judgments.models import JudgmentSet
from annotate.rating.models import Campaign, Subject
from annotate.releases.models import Release
from core.runs.models import Run

M = TypeVar("M", bound=models.Model)


class WeightSource(models.TextChoices):
    RELEASE = "release", "A frozen release's weights"
    CAMPAIGN = "campaign", "A rating campaign's current weights"
    UNIFORM = "uniform", "Every reference counts +1 (no ratings)"


class CriteriaCombination(models.TextChoices):
    SEPARATE = "separate", "Each criterion side by side"
    MEAN = "mean", "The mean of the criteria"


class LeaveOneOut(models.TextChoices):
    AUTO = "auto", "When a system's outputs coincide with references"
    ON = "on", "Always"
    OFF = "off", "Never"


def _input(to: type[M], related_name: str, **kwargs: Any) -> models.ForeignKey[M | None, M | None]:
    """A source a study may read: optional (weights come from a release or a campaign, human
    scores from judgments or a campaign), and kept while a study names it."""
    return models.ForeignKey(
        to, null=True, blank=True, on_delete=models.PROTECT, related_name=related_name, **kwargs
    )


def _campaign_input(
    subject: str, related_name: str, help_text: str
) -> models.ForeignKey[Campaign | None, Campaign | None]:
    """A rating campaign the study may read, offered (forms, admin) among those on `subject`."""
    return _input(
        Campaign, related_name, limit_choices_to={"subject": subject}, help_text=help_text
    )


class CorrelationStudy(models.Model):
    """How well each metric's differences between systems follow the humans' (Galley et al.
    2015, sec. 5). Human scores come from imported judgments or an output campaign."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="correlation_studies"
    )
    name = models.CharField(max_length=200)
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="studies")
    weight_source = models.CharField(
        max_length=10, choices=WeightSource.choices, default=WeightSource.RELEASE
    )
    release = _input(Release, "studies")
    weight_campaign = _campaign_input(
        Subject.REFERENCES,
        "weight_studies",
        "A rating campaign on references whose current weights the metrics use.",
    )
    split = models.CharField(max_length=10, choices=SplitName.choices, default=SplitName.TEST)
    judgment_set = _input(JudgmentSet, "studies")
    output_campaign = _campaign_input(
        Subject.OUTPUTS,
        "studies",
        "A rating campaign on outputs whose ratings are the human scores.",
    )
    criteria = models.JSONField(
        default=list, blank=True, help_text="Criterion names; empty means the first one."
    )
    combine = models.CharField(
        max_length=10, choices=CriteriaCombination.choices, default=CriteriaCombination.SEPARATE
    )
    excluded_systems = models.JSONField(default=list, blank=True)
    leave_one_out = models.CharField(
        max_length=4, choices=LeaveOneOut.choices, default=LeaveOneOut.AUTO
    )
    pairs = models.JSONField(default=list, blank=True, help_text="[[system A, system B], …]")
    options = models.JSONField(default=dict, blank=True)
    run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="studies"
    )
    result = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "correlation studies"

    def __str__(self) -> str:
        return self.name
