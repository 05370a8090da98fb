from annotate.models.accounts import Invitation, Profile, Role
from annotate.models.datasets import Dataset, Item, Origin, Reference, Split, SplitName, Visibility
from annotate.models.jobs import Job, JobStatus
from annotate.models.rating import (
    Campaign,
    CampaignRater,
    CampaignStatus,
    Flag,
    QCStatus,
    Rating,
    RatingKind,
    RatingStatus,
    ReferenceSlot,
    Weight,
)
from annotate.models.releases import (
    Release,
    ReleaseItem,
    ReleaseRating,
    ReleaseReference,
    ReleaseStatus,
    WeightVariant,
)

__all__ = [
    "Campaign",
    "CampaignRater",
    "CampaignStatus",
    "Dataset",
    "Flag",
    "Invitation",
    "Item",
    "Job",
    "JobStatus",
    "Origin",
    "Profile",
    "QCStatus",
    "Rating",
    "RatingKind",
    "RatingStatus",
    "Reference",
    "ReferenceSlot",
    "Release",
    "ReleaseItem",
    "ReleaseRating",
    "ReleaseReference",
    "ReleaseStatus",
    "Role",
    "Split",
    "SplitName",
    "Visibility",
    "Weight",
    "WeightVariant",
]
