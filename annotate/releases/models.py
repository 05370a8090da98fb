"""Dataset releases: a frozen, versioned snapshot of items, references and weights.

A release is frozen as a draft (the snapshot rows are copied from the live dataset and its
campaign's weights) and then published, after which its snapshot and its frozen fields cannot
change: the services refuse, and database triggers (migration 0005) abort any UPDATE, DELETE or
INSERT that would. Only the publication scope may grow: a hidden split can be revealed later.

Readers (leaderboards, exports) go through `ReleaseItem` in `position` order, filtered by `split`,
and `ReleaseReference` in (item, position) order.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from annotate.datasets.models import Dataset, Origin, SplitName
from annotate.rating.models import Campaign, WeightStatistics
from core.paths import storage_join

# Semantic Versioning 2.0.0's grammar (semver.org, §2, §9, §10), with [0-9] for \d (which would
# take any Unicode digit) and \Z for $ (which would take a trailing newline): a version becomes a
# storage path and a URL, so it must be exactly this and nothing more.
_NUMBER = r"(?:0|[1-9][0-9]*)"
_IDENTIFIER = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
SEMVER_PATTERN = (
    rf"\A{_NUMBER}\.{_NUMBER}\.{_NUMBER}"
    rf"(?:-{_IDENTIFIER}(?:\.{_IDENTIFIER})*)?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?\Z"
)
semantic_version = RegexValidator(
    SEMVER_PATTERN,
    "The version must be a semantic version (semver.org 2.0.0), such as 1.0.0 or 1.2.0-rc.1.",
)


class ReleaseStatus(models.TextChoices):
    DRAFT = "draft"
    PUBLISHED = "published"


class WeightVariant(models.TextChoices):
    RAW = "raw", "Raw ratings"
    Z = "z", "Per-rater z-normalised ratings"


def weight_field(variant: str) -> str:
    """The reference field (and content key) that holds a release's weights of `variant`."""
    return "z_weight" if variant == WeightVariant.Z else "weight"


def _default_public_splits() -> list[str]:
    return [SplitName.DEV]


def release_files_prefix(*, dataset_id: int, version: str, manifest_checksum: str) -> str:
    """The storage folder of one set of a release's files.

    By dataset id, since a slug can be changed and then taken by another dataset; and by
    manifest checksum, so publishing or revealing writes a folder nobody reads yet and the
    row's `manifest_checksum` moves readers to it in one UPDATE (storage has no rename).
    """
    if not manifest_checksum:
        raise ValueError("A draft release has no files.")
    return storage_join("releases", str(dataset_id), version, manifest_checksum[:16]) + "/"


class Release(models.Model):
    # PROTECT: a dataset with releases cannot disappear under a published, citable version.
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="releases")
    version = models.CharField(max_length=32, validators=[semantic_version])
    status = models.CharField(
        max_length=10, choices=ReleaseStatus.choices, default=ReleaseStatus.DRAFT
    )
    # The weights' source. SET_NULL is allowed by the triggers: `build_info` keeps what the
    # datasheet needs, so a deleted campaign does not change the release.
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="releases"
    )
    weight_variant = models.CharField(
        max_length=3, choices=WeightVariant.choices, default=WeightVariant.RAW
    )
    public_splits = models.JSONField(
        default=_default_public_splits,
        blank=True,
        help_text="Splits whose references are published; the others stay hidden.",
    )
    include_ratings = models.BooleanField(
        default=False, help_text="Publish the anonymised individual ratings."
    )
    license = models.CharField(max_length=100, default="CC-BY-4.0")
    citation = models.TextField(blank=True, help_text="BibTeX.")
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="releases"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)
    # Facts about how the data was built (campaign settings, rater counts, QC, agreement),
    # frozen with the snapshot so the datasheet can be regenerated identically after import.
    build_info = models.JSONField(default=dict, blank=True)
    # SHA-256 of the canonical snapshot, hidden splits included; frozen on publication.
    snapshot_checksum = models.CharField(max_length=64, blank=True)
    # The public file set: {"files": [{"name", "sha256", "size"}], ...} and its SHA-256. These
    # change only when a hidden split is revealed.
    manifest = models.JSONField(default=dict, blank=True)
    manifest_checksum = models.CharField(max_length=64, blank=True)
    # The cached archive, built once by a "release-archive" job.
    archive_name = models.CharField(max_length=300, blank=True)
    archive_sha256 = models.CharField(max_length=64, blank=True)
    imported = models.BooleanField(default=False, help_text="Imported from another installation.")

    class Meta:
        ordering = ["dataset", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "version"], name="release_unique_version"),
            models.CheckConstraint(
                condition=models.Q(status="draft") | models.Q(published_at__isnull=False),
                name="release_published_has_date",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dataset.slug} {self.version}"

    @property
    def is_published(self) -> bool:
        return self.status == ReleaseStatus.PUBLISHED

    @property
    def storage_prefix(self) -> str:
        return release_files_prefix(
            dataset_id=self.dataset_id,
            version=self.version,
            manifest_checksum=self.manifest_checksum,
        )


class ReleaseItem(models.Model):
    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="items")
    split = models.CharField(max_length=10, choices=SplitName.choices)
    external_id = models.CharField(max_length=200)
    context = models.JSONField(default=list, blank=True)
    message = models.TextField()
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["release", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["release", "position"], name="release_item_unique_position"
            ),
            models.UniqueConstraint(
                fields=["release", "split", "external_id"], name="release_item_unique_id"
            ),
        ]
        indexes = [models.Index(fields=["release", "split", "position"])]

    def __str__(self) -> str:
        return f"{self.split}/{self.external_id}"


class ReleaseReference(WeightStatistics):
    """A reference as frozen, with its weight's statistics as the campaign had them."""

    # `release` repeats `item.release` so the immutability triggers need no join.
    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="references")
    item = models.ForeignKey(ReleaseItem, on_delete=models.CASCADE, related_name="references")
    position = models.PositiveIntegerField()
    text = models.TextField()
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.ORIGINAL)
    # The numbers whose mean is the weight's mean rating (the counted scores, or their per-rater
    # z-rescaled values for the z variant), in rating order: a leaderboard resamples them to
    # show how much its ranking depends on the raters. Internal: files and the API publish
    # ratings only when the release includes them.
    rating_values = models.JSONField(default=list, blank=True)
    # Who gave each of them (the release's rater numbers: r001 is 1), in the same order: the
    # rater model measures from them how much raters differ in their own offsets. Internal too.
    rating_raters = models.JSONField(default=list, blank=True)
    # The live reference it was copied from (no foreign key: the live one may be deleted while
    # the release stays): adaptive rating maps a board's sensitivities back to it.
    source_reference_id = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["item", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "position"], name="release_reference_unique_position"
            ),
        ]

    def __str__(self) -> str:
        return self.text[:60]

    def weight_for(self, variant: str) -> float | None:
        return self.z_weight if variant == WeightVariant.Z else self.weight


class ReleaseRating(models.Model):
    """An individual rating, with the rater replaced by a pseudonym local to the release."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="ratings")
    reference = models.ForeignKey(
        ReleaseReference, on_delete=models.CASCADE, related_name="ratings"
    )
    rater = models.CharField(max_length=20, help_text="Pseudonym such as r007.")
    score = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["reference", "rater"]
        indexes = [models.Index(fields=["release", "reference"])]

    def __str__(self) -> str:
        return f"{self.rater} → {self.reference_id}: {self.score}"


class SplitReveal(models.Model):
    """The log of every reveal of a hidden split, on a dataset or on one of its releases."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="reveals")
    release = models.ForeignKey(
        "Release", null=True, blank=True, on_delete=models.CASCADE, related_name="reveals"
    )
    split = models.CharField(max_length=10, choices=SplitName.choices)
    revealed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="split_reveals"
    )
    revealed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-revealed_at"]

    def __str__(self) -> str:
        where = self.dataset.slug
        if self.release is not None:
            where += f"@{self.release.version}"
        return f"{where}/{self.split} revealed by {self.revealed_by}"
