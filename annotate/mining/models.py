"""Corpora of conversational triples to mine candidate references from, and what was removed."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class CorpusStatus(models.TextChoices):
    PENDING = "pending", "Waiting to be indexed"
    INDEXING = "indexing"
    READY = "ready"
    FAILED = "failed"


class CorpusFormat(models.TextChoices):
    JSONL = "jsonl", "JSONL"
    TSV = "tsv", "TSV"


def corpus_upload_to(corpus: Corpus, filename: str) -> str:
    return f"corpora/uploads/{filename}"


class Corpus(models.Model):
    """A file of (context, message, response) triples and the BM25 index built from it.

    Uploaded corpora keep their file in storage (the worker indexes it from there); corpora
    added by staff from a server path have no file: the command indexes the path directly and
    only the index (which holds every triple's text) goes to storage.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="corpora"
    )
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    file = models.FileField(upload_to=corpus_upload_to, max_length=500, blank=True)
    source = models.CharField(max_length=500, blank=True, help_text="Original file name or path.")
    format = models.CharField(max_length=10, choices=CorpusFormat.choices)
    language = models.CharField(max_length=35, default="en")
    shared = models.BooleanField(
        default=False, help_text="Every researcher may mine from it (otherwise only its owner)."
    )
    skip_bad_rows = models.BooleanField(
        default=False, help_text="Index the good rows and list the bad ones, instead of failing."
    )
    status = models.CharField(
        max_length=10, choices=CorpusStatus.choices, default=CorpusStatus.PENDING
    )
    rows = models.PositiveIntegerField(default=0, help_text="Triples in the index.")
    bad_rows = models.PositiveIntegerField(default=0)
    problems = models.JSONField(default=list, blank=True, help_text="Bad rows, by line.")
    index_path = models.CharField(
        max_length=500, blank=True, help_text="Storage folder of the BM25 index."
    )
    index_meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    indexed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name_plural = "corpora"
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return self.name

    @property
    def is_ready(self) -> bool:
        return self.status == CorpusStatus.READY


class DismissedCandidate(models.Model):
    """A mined or parroted candidate its owner removed, so that mining again does not bring it
    back; it also records who removed what."""

    item = models.ForeignKey(
        "datasets.Item", on_delete=models.CASCADE, related_name="dismissed_candidates"
    )
    # sha256 of the normalized text: the text itself can be longer than an index allows.
    key = models.CharField(max_length=64)
    text = models.TextField()
    origin = models.CharField(max_length=10)
    provenance = models.JSONField(default=dict, blank=True)
    dismissed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    dismissed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-dismissed_at"]
        constraints = [
            models.UniqueConstraint(fields=["item", "key"], name="dismissed_unique_per_item")
        ]

    def __str__(self) -> str:
        return self.text[:60]
