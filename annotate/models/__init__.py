from annotate.models.accounts import Invitation, Profile, Role
from annotate.models.corpora import Corpus, CorpusFormat, CorpusStatus, DismissedCandidate
from annotate.models.datasets import Dataset, Item, Origin, Reference, Split, SplitName, Visibility
from annotate.models.jobs import Job, JobStatus

__all__ = [
    "Corpus",
    "CorpusFormat",
    "CorpusStatus",
    "Dataset",
    "DismissedCandidate",
    "Invitation",
    "Item",
    "Job",
    "JobStatus",
    "Origin",
    "Profile",
    "Reference",
    "Role",
    "Split",
    "SplitName",
    "Visibility",
]
