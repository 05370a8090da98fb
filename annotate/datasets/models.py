from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models


class Visibility(models.TextChoices):
    PUBLIC = "public"
    PRIVATE = "private"


class SplitName(models.TextChoices):
    DEV = "dev", "Development"
    TEST = "test"


class Origin(models.TextChoices):
    ORIGINAL = "original", "Original response"
    MINED = "mined", "Mined from a corpus"
    PARROTED = "parroted", "Parroted message"
    WRITTEN = "written", "Written by a person"


language_code = RegexValidator(
    r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$", "Use a BCP 47 language tag such as en or pt-BR."
)


class Dataset(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="datasets"
    )
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    language = models.CharField(max_length=35, default="en", validators=[language_code])
    scale_min = models.PositiveSmallIntegerField(default=1)
    scale_max = models.PositiveSmallIntegerField(default=5)
    visibility = models.CharField(
        max_length=10, choices=Visibility.choices, default=Visibility.PRIVATE
    )
    # Splits the owner revealed: a test split's references are hidden until it is listed here
    # (see annotate/datasets/visibility.py).
    revealed_splits = models.JSONField(default=list, blank=True)
    # Counts written by the `dataset_compute_stats` task after every change.
    stats = models.JSONField(default=dict, blank=True)
    stats_updated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scale_min__lt=models.F("scale_max")),
                name="dataset_scale_min_lt_max",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        # On the field, in words: the constraint alone says "Constraint … is violated" and
        # names no field (full_clean then skips it, the field having an error).
        low, high = self.scale_min, self.scale_max
        if low is not None and high is not None and low >= high:
            raise ValidationError({"scale_max": f"Must be above the scale's minimum ({low})."})


class Split(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="splits")
    name = models.CharField(max_length=10, choices=SplitName.choices)

    class Meta:
        ordering = ["dataset", "name"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "name"], name="split_unique_per_dataset")
        ]

    def __str__(self) -> str:
        return f"{self.dataset.slug}/{self.name}"


class Item(models.Model):
    """One conversation: earlier turns, the message to answer, and candidate references."""

    split = models.ForeignKey(Split, on_delete=models.CASCADE, related_name="items")
    external_id = models.CharField(max_length=200)
    context = models.JSONField(default=list, blank=True, help_text="Earlier turns, oldest first.")
    message = models.TextField()
    # Order within the dataset as imported, so an export reproduces the file line for line.
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["split", "external_id"], name="item_unique_id_in_split")
        ]
        indexes = [models.Index(fields=["split", "position"])]

    def __str__(self) -> str:
        return self.external_id


class Reference(models.Model):
    """A candidate response for an item; raters decide how good it is."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="references")
    text = models.TextField()
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.ORIGINAL)
    provenance = models.JSONField(default=dict, blank=True)
    position = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "position"]
        constraints = [
            models.UniqueConstraint(fields=["item", "position"], name="reference_unique_position")
        ]

    def __str__(self) -> str:
        return self.text[:60]
