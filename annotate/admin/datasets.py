from django.contrib import admin

from annotate.models import (
    Corpus,
    Dataset,
    DismissedCandidate,
    Invitation,
    Item,
    Profile,
    Reference,
    Split,
    SplitReveal,
)


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "role", "crowd_id", "created_at"]
    list_filter = ["role"]
    search_fields = ["user__username", "user__email", "crowd_id"]
    raw_id_fields = ["user"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["token", "role", "created_by", "uses", "max_uses", "expires_at", "note"]
    list_filter = ["role", "expires_at"]
    search_fields = ["token", "note", "created_by__username"]
    raw_id_fields = ["created_by"]
    readonly_fields = ["uses", "created_at"]


class SplitInline(admin.TabularInline):
    model = Split
    extra = 0


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "owner", "language", "visibility", "updated_at"]
    list_filter = ["visibility", "language"]
    search_fields = ["name", "slug", "description", "owner__username"]
    prepopulated_fields = {"slug": ["name"]}
    raw_id_fields = ["owner"]
    readonly_fields = ["stats", "stats_updated_at", "created_at", "updated_at"]
    inlines = [SplitInline]


@admin.register(Split)
class SplitAdmin(admin.ModelAdmin):
    list_display = ["dataset", "name"]
    list_filter = ["name"]
    search_fields = ["dataset__name", "dataset__slug"]


class ReferenceInline(admin.TabularInline):
    model = Reference
    extra = 0
    fields = ["position", "text", "origin", "provenance"]


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["external_id", "split", "message", "position"]
    list_filter = ["split__name", "split__dataset"]
    search_fields = ["external_id", "message"]
    list_select_related = ["split__dataset"]
    raw_id_fields = ["split"]
    inlines = [ReferenceInline]


@admin.register(Reference)
class ReferenceAdmin(admin.ModelAdmin):
    list_display = ["text", "origin", "item", "position", "created_at"]
    list_filter = ["origin", "item__split__dataset"]
    search_fields = ["text", "item__external_id"]
    list_select_related = ["item"]
    raw_id_fields = ["item"]


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


@admin.register(SplitReveal)
class SplitRevealAdmin(admin.ModelAdmin):
    """The audit log of reveals: read-only, since a reveal cannot be undone."""

    list_display = ["dataset", "release", "split", "revealed_by", "revealed_at"]
    # release is nullable (the default select_related() skips it) and names its dataset.
    list_select_related = ["dataset", "release__dataset", "revealed_by"]
    list_filter = ["split", "revealed_at"]
    search_fields = ["dataset__slug", "revealed_by__username"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False
