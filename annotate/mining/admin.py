"""Admin of corpora and dismissed mined candidates."""

from __future__ import annotations

from django.contrib import admin

from annotate.mining.models import Corpus, DismissedCandidate


@admin.register(Corpus)
class CorpusAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "format", "status", "rows", "bad_rows", "shared", "created_at"]
    list_filter = ["status", "format", "shared", "language"]
    search_fields = ["name", "description", "source", "owner__username"]
    raw_id_fields = ["owner"]
    readonly_fields = [
        "rows",
        "bad_rows",
        "problems",
        "index_path",
        "index_meta",
        "created_at",
        "indexed_at",
    ]


@admin.register(DismissedCandidate)
class DismissedCandidateAdmin(admin.ModelAdmin):
    list_display = ["text", "origin", "item", "dismissed_by", "dismissed_at"]
    list_filter = ["origin", "item__split__dataset"]
    search_fields = ["text", "item__external_id"]
    list_select_related = ["item", "dismissed_by"]
    raw_id_fields = ["item", "dismissed_by"]
    readonly_fields = ["key", "dismissed_at"]
