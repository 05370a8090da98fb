"""What the datasheet says about how a release was built, collected once when it is frozen.

Stored in `Release.build_info` (and in the archive's release.json), so a datasheet regenerated
later, or in another installation, says the same thing although campaigns keep changing.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from annotate.datasets.models import Dataset, Reference
from annotate.rating.models import Campaign, CampaignRater, Rating, RatingKind, RatingStatus
from annotate.rating.selectors.agreement import campaign_alpha_interval
from core.queries import count_by

CAMPAIGN_SETTINGS = (
    "name",
    "scale_min",
    "scale_max",
    "anchors",
    "ratings_per_unit",
    "extra_ratings_on_disagreement",
    "disagreement_sd",
    "control_rate",
    "qc_min_seconds",
    "qc_max_straightline",
    "qc_alpha",
    "qc_min_controls",
    "qc_max_repeat_difference",
)


def _agreement(campaign: Campaign) -> dict[str, Any]:
    """Krippendorff's alpha (interval) over the counted ratings, as the campaign's dashboard
    shows it, with the references it is computed on."""
    alpha, units = campaign_alpha_interval(campaign=campaign)
    return {
        "krippendorff_alpha_interval": None if alpha is None else round(alpha, 4),
        "references_with_2_or_more_ratings": units,
    }


def _raters(campaign: Campaign) -> dict[str, Any]:
    statuses = count_by(CampaignRater.objects.filter(campaign=campaign), "qc_status")
    ratings = Rating.objects.filter(campaign=campaign, status=RatingStatus.DONE)
    return {
        "joined": sum(statuses.values()),
        "qc": {status: statuses.get(status, 0) for status in ("passed", "failed", "pending")},
        "with_counted_ratings": ratings.filter(counted=True).values("rater").distinct().count(),
        "ratings_counted": ratings.filter(kind=RatingKind.NORMAL, counted=True).count(),
        "ratings_excluded_by_qc": ratings.filter(kind=RatingKind.NORMAL, counted=False).count(),
        "control_ratings": ratings.exclude(kind=RatingKind.NORMAL).count(),
    }


def _sources(dataset: Dataset) -> dict[str, Any]:
    origins: Counter[str] = Counter()
    corpora: Counter[str] = Counter()
    for origin, provenance in Reference.objects.filter(item__split__dataset=dataset).values_list(
        "origin", "provenance"
    ):
        origins[origin] += 1
        if isinstance(provenance, dict) and provenance.get("corpus"):
            corpora[str(provenance["corpus"])] += 1
    return {"origins": dict(origins), "mined_from_corpora": dict(corpora)}


def build_info_collect(*, dataset: Dataset, campaign: Campaign | None) -> dict[str, Any]:
    info: dict[str, Any] = {
        "dataset": {
            "name": dataset.name,
            "slug": dataset.slug,
            "language": dataset.language,
            "description": dataset.description,
            "scale_min": dataset.scale_min,
            "scale_max": dataset.scale_max,
        },
        "sources": _sources(dataset),
        "campaign": None,
    }
    if campaign is not None:
        info["campaign"] = {name: getattr(campaign, name) for name in CAMPAIGN_SETTINGS}
        info["raters"] = _raters(campaign)
        info["agreement"] = _agreement(campaign)
    return info
