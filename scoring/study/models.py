"""Correlation studies: a release's references, a human evaluation, and the stored result."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotate.datasets.models import SplitName
from annotate.judgments.models import JudgmentSet
from annotate.rating.models import Campaign, Subject
from annotate.releases.models import Release
from core.runs.models import Run


class CorrelationStudy(models.Model):
    """How well each metric's differences between systems follow the humans' (Galley et al.
    2015, sec. 5). Human scores come from imported judgments or an output campaign."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="correlation_studies"
    )
    name = models.CharField(max_length=200)
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="studies")
    split = models.CharField(max_length=10, choices=SplitName.choices, default=SplitName.TEST)
    judgment_set = models.ForeignKey(
        JudgmentSet, null=True, blank=True, on_delete=models.PROTECT, related_name="studies"
    )
    output_campaign = models.ForeignKey(
        Campaign,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="studies",
        limit_choices_to={"subject": Subject.OUTPUTS},
        help_text="A rating campaign on outputs whose ratings are the human scores.",
    )
    criterion = models.CharField(max_length=100, blank=True)
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
