"""Freezing a draft release: copy the dataset's items, references and one campaign's weights."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch

from annotate.datasets.models import Dataset, Item, Reference, SplitName
from annotate.rating.models import Campaign, Rating, RatingKind, RatingStatus, Weight
from annotate.rating.selectors.campaigns import campaign_rating_pools
from annotate.releases.models import (
    Release,
    ReleaseItem,
    ReleaseRating,
    ReleaseReference,
    ReleaseStatus,
    WeightVariant,
    semantic_version,
)
from annotate.releases.selectors.content import content_checksum, release_content
from annotate.releases.services.buildinfo import build_info_collect
from annotate.releases.services.unrated import release_unrated_resolve
from core.bulk import INSERT_BATCH, analyze_after_commit
from core.inserts import insert_checked

MAX_VERSION_LENGTH = Release._meta.get_field("version").max_length or 32


def release_version_check(version: str) -> None:
    """Refuse anything but a semantic version: it becomes part of storage paths and URLs."""
    if len(version) > MAX_VERSION_LENGTH:
        raise ValidationError(
            {"version": f"The version must have at most {MAX_VERSION_LENGTH} characters."}
        )
    try:
        semantic_version(version)
    except ValidationError as exc:
        raise ValidationError({"version": exc.messages}) from None


def _check_choices(
    *, dataset: Dataset, campaign: Campaign | None, public_splits: list[str], variant: str
) -> None:
    if campaign is not None and campaign.dataset_id != dataset.pk:
        raise ValidationError({"campaign": "The campaign rates another dataset."})
    if campaign is not None and not campaign.rates_references:
        raise ValidationError({"campaign": "That campaign rates outputs, not references."})
    unknown = set(public_splits) - set(SplitName.values)
    if unknown:
        raise ValidationError({"public_splits": f"Unknown splits: {', '.join(sorted(unknown))}."})
    if variant not in WeightVariant.values:
        raise ValidationError({"weight_variant": "Use raw or z."})
    if not Item.objects.filter(split__dataset=dataset).exists():
        raise ValidationError("The dataset has no items to release.")


@dataclass(frozen=True)
class _Ratings:
    """What a campaign gives each reference copy: its weight row and its rating values."""

    weights: dict[int, Weight]
    values: dict[int, list[float]]
    raters: dict[int, list[int]]

    @classmethod
    def of(cls, campaign: Campaign | None, variant: str) -> _Ratings:
        if campaign is None:
            return cls({}, {}, {})
        weights = {w.reference_id: w for w in Weight.objects.filter(campaign=campaign)}
        return cls(weights, *campaign_rating_pools(campaign=campaign, variant=variant))


def _copy_snapshot(release: Release, campaign: Campaign | None) -> dict[int, ReleaseReference]:
    """Copy items and references batch by batch; returns live reference id → its copy."""
    ratings = _Ratings.of(campaign, release.weight_variant)
    items = (
        Item.objects.filter(split__dataset=release.dataset)
        .select_related("split")
        .prefetch_related(Prefetch("references", queryset=Reference.objects.order_by("position")))
        .order_by("position")
    )
    copies: dict[int, ReleaseReference] = {}
    batch: list[Item] = []
    for item in items.iterator(chunk_size=INSERT_BATCH):
        batch.append(item)
        if len(batch) == INSERT_BATCH:
            _copy_batch(release, batch, ratings, copies)
            batch = []
    _copy_batch(release, batch, ratings, copies)
    return copies


def _copy_batch(
    release: Release, batch: list[Item], ratings: _Ratings, copies: dict[int, ReleaseReference]
) -> None:
    start = ReleaseItem.objects.filter(release=release).count()
    frozen = ReleaseItem.objects.bulk_create(
        [
            ReleaseItem(
                release=release,
                split=item.split.name,
                external_id=item.external_id,
                context=item.context,
                message=item.message,
                position=start + k,
            )
            for k, item in enumerate(batch)
        ]
    )
    refs = []
    for item, copy in zip(batch, frozen, strict=True):
        for ref in item.references.all():
            copies[ref.pk] = _reference_copy(release, copy, ref, ratings)
            refs.append(copies[ref.pk])
    ReleaseReference.objects.bulk_create(refs, batch_size=INSERT_BATCH)


def _reference_copy(
    release: Release, item: ReleaseItem, ref: Reference, ratings: _Ratings
) -> ReleaseReference:
    weight = ratings.weights.get(ref.pk)
    stats = weight.statistics() if weight is not None else {}
    return ReleaseReference(
        release=release,
        item=item,
        position=ref.position,
        text=ref.text,
        origin=ref.origin,
        rating_values=ratings.values.get(ref.pk, []),
        rating_raters=ratings.raters.get(ref.pk, []),
        source_reference_id=ref.pk,
        **stats,
    )


def _copy_ratings(release: Release, campaign: Campaign, copies: dict[int, ReleaseReference]):
    ratings = (
        Rating.objects.filter(
            campaign=campaign, kind=RatingKind.NORMAL, status=RatingStatus.DONE, counted=True
        )
        .select_related("slot")
        .order_by("started_at", "pk")
    )
    pseudonyms: dict[int, str] = {}
    rows = []
    for rating in ratings.iterator(chunk_size=INSERT_BATCH):
        # Pseudonyms follow the order of each rater's first rating: stable, and not the user id.
        name = pseudonyms.setdefault(rating.rater_id, f"r{len(pseudonyms) + 1:03d}")
        rows.append(
            ReleaseRating(
                release=release,
                reference=copies[rating.slot.reference_id or 0],  # normal: a reference's
                rater=name,
                score=rating.score or 0,  # done ratings have a score (a constraint)
            )
        )
    ReleaseRating.objects.bulk_create(rows, batch_size=INSERT_BATCH)


@transaction.atomic
def release_freeze(
    *,
    dataset: Dataset,
    version: str,
    created_by: User,
    campaign: Campaign | None,
    weight_variant: str = WeightVariant.RAW,
    public_splits: list[str] | None = None,
    include_ratings: bool = False,
    license: str = "CC-BY-4.0",
    citation: str = "",
    description: str = "",
    unrated: str = "",
) -> Release:
    """A draft release with a snapshot of the dataset as it is now; publish it next. References
    the campaign has not rated need `unrated` ("exclude" or "zero"; services/unrated.py)."""
    release_version_check(version)
    public_splits = sorted(set(public_splits if public_splits is not None else ["dev"]))
    _check_choices(
        dataset=dataset, campaign=campaign, public_splits=public_splits, variant=weight_variant
    )
    if Release.objects.filter(dataset=dataset, version=version).exists():
        raise ValidationError({"version": f"Version {version} already exists."})
    release = Release(
        dataset=dataset,
        version=version,
        created_by=created_by,
        campaign=campaign,
        weight_variant=weight_variant,
        public_splits=public_splits,
        include_ratings=include_ratings and campaign is not None,
        license=license,
        citation=citation,
        description=description,
        build_info=build_info_collect(dataset=dataset, campaign=campaign),
    )
    insert_checked(release)
    copies = _copy_snapshot(release, campaign)
    if release.include_ratings and campaign is not None:
        _copy_ratings(release, campaign, copies)
    release_unrated_resolve(release=release, choice=unrated)
    release.snapshot_checksum = content_checksum(
        release_content(release=release, public_only=False)
    )
    release.save(update_fields=["snapshot_checksum", "build_info"])
    analyze_after_commit(ReleaseItem, ReleaseReference, ReleaseRating, rows=len(copies))
    return release


def release_delete_draft(*, release: Release) -> None:
    if release.status != ReleaseStatus.DRAFT:
        raise ValidationError("A published release cannot be deleted.")
    release.delete()
