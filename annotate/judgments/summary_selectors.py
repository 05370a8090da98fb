"""Reads of a judgment set's summary: every judgment of the set, summarised by `summary_math`."""

from __future__ import annotations

from django.db.models import QuerySet

from annotate.datasets.models import Dataset
from annotate.judgments.models import Judgment, JudgmentSet
from annotate.judgments.summary_math import Summary, judgments_summary


def judgment_set_summary(*, judgment_set: JudgmentSet) -> Summary:
    """Each system's mean per criterion over all the set's judged items (with or without
    references), its 95% bootstrap interval and counts, and the judges' agreement."""
    rows = Judgment.objects.filter(judgment_set=judgment_set).values_list(
        "judge", "external_id", "system__name", "criterion", "score"
    )
    return judgments_summary(rows.iterator(), criteria=list(judgment_set.criteria))


def judgment_sets_of_dataset(*, dataset: Dataset) -> QuerySet[JudgmentSet]:
    """The dataset's judgment sets, newest first (for those who manage the dataset)."""
    return JudgmentSet.objects.filter(dataset=dataset).order_by("-created_at", "-pk")
