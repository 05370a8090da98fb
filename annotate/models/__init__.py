from annotate.models.accounts import Invitation, Profile, Role
from annotate.models.datasets import Dataset, Item, Origin, Reference, Split, SplitName, Visibility

__all__ = [
    "Dataset",
    "Invitation",
    "Item",
    "Origin",
    "Profile",
    "Reference",
    "Role",
    "Split",
    "SplitName",
    "Visibility",
]
