"""What the confirmation pages of a release's final acts list: publishing it, revealing one of
its hidden splits, revealing a split of the live dataset."""

from __future__ import annotations

from annotate.datasets.models import Dataset, Reference
from annotate.releases.models import Release, ReleaseItem, ReleaseReference
from core.queries import count_by


def release_unweighted_count(*, release: Release) -> int:
    """References of the draft's snapshot without a weight (the campaign never rated them)."""
    return ReleaseReference.objects.filter(release=release, weight__isnull=True).count()


def _per_split(release: Release) -> dict[str, tuple[int, int]]:
    items = count_by(ReleaseItem.objects.filter(release=release), "split")
    refs = count_by(ReleaseReference.objects.filter(release=release), "item__split")
    return {split: (n, refs.get(split, 0)) for split, n in sorted(items.items())}


def release_publish_consequences(*, release: Release) -> list[str]:
    splits = _per_split(release)
    public = [s for s in splits if s in release.public_splits]
    hidden = [s for s in splits if s not in release.public_splits]
    shown = ", ".join(f"{s} ({splits[s][0]} items, {splits[s][1]} references)" for s in public)
    lines = [
        f"freeze {release.dataset.slug} {release.version} for good: its items, references "
        "and weights can never change, and the version cannot be deleted or reused;",
        f"publish the references of {shown or 'no split'} to everyone who can see "
        f"the dataset (it is {release.dataset.get_visibility_display().lower()});",
    ]
    if hidden:
        lines.append(
            f"keep the references of {', '.join(hidden)} hidden until you reveal them "
            "(a reveal is final too);"
        )
    if release.include_ratings:
        lines.append("publish the anonymised individual ratings of the public splits;")
    unrated = release.build_info.get("unrated") or {}
    if unrated.get("choice") == "exclude":
        lines.append(f"leave out {unrated['references']} references that were never rated;")
    elif unrated.get("choice") == "zero":
        lines.append(f"publish {unrated['references']} never-rated references with weight 0;")
    lines.append("build its downloadable archive.")
    return lines


def release_reveal_consequences(*, release: Release, split: str) -> list[str]:
    items, refs = _per_split(release).get(split, (0, 0))
    return [
        f"publish the {refs} references of the {split} split ({items} items) of "
        f"{release.dataset.slug} {release.version} to everyone who can see the release;",
        "let anyone score against them: leaderboards on this split stop being blind tests;",
        "write a new set of files (manifest and archive) for the release;",
        "log the reveal under your name.",
    ]


def dataset_reveal_consequences(*, dataset: Dataset, split: str) -> list[str]:
    refs = Reference.objects.filter(item__split__dataset=dataset, item__split__name=split).count()
    return [
        f"show the {refs} references of the {split} split of {dataset.slug} to everyone who "
        "can see the dataset;",
        "end the split's use as a blind test set;",
        "log the reveal under your name.",
    ]
