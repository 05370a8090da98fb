from django.contrib import admin

from annotate.rating.models import WEIGHT_STATISTICS
from annotate.releases.models import (
    Release,
    ReleaseItem,
    ReleaseRating,
    ReleaseReference,
    SplitReveal,
)
from annotate.releases.services.freeze import release_delete_draft

SNAPSHOT_MODELS = (ReleaseItem, ReleaseReference, ReleaseRating)


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    """Releases change through the services; the database refuses edits of published ones."""

    list_display = ["dataset", "version", "status", "license", "published_at", "imported"]
    list_filter = ["status", "imported"]
    search_fields = ["dataset__slug", "version"]
    raw_id_fields = ["dataset", "campaign", "created_by"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return obj is None or obj.status == "draft"

    def get_deleted_objects(self, objs, request):
        # A draft's snapshot rows go with it, though none can be deleted on its own.
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        snapshot = {model._meta.verbose_name for model in SNAPSHOT_MODELS}
        return deleted, counts, perms_needed - snapshot, protected

    def delete_model(self, request, obj):
        release_delete_draft(release=obj)

    def delete_queryset(self, request, queryset):
        for release in queryset:
            release_delete_draft(release=release)


class SnapshotRowAdmin(admin.ModelAdmin):
    """A release's frozen rows, to look at only. The freeze (or an import) writes them, and the
    release's checksum covers them: an edit would make a draft's checksum lie, and the database
    refuses any change to a published release's rows."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ReleaseItem)
class ReleaseItemAdmin(SnapshotRowAdmin):
    list_display = ["release", "split", "external_id", "position"]
    list_filter = ["split"]
    search_fields = ["release__dataset__slug", "external_id", "message"]
    raw_id_fields = ["release"]


@admin.register(ReleaseReference)
class ReleaseReferenceAdmin(SnapshotRowAdmin):
    list_display = ["item", "position", "origin", "weight", "z_weight", "n"]
    # The reference first: the model lists its weight's statistics first (an abstract base's).
    fields = [
        "release",
        "item",
        "position",
        "text",
        "origin",
        *WEIGHT_STATISTICS,
        "rating_values",
        "rating_raters",
        "source_reference_id",
    ]
    search_fields = ["release__dataset__slug", "text"]
    raw_id_fields = ["release", "item"]


@admin.register(ReleaseRating)
class ReleaseRatingAdmin(SnapshotRowAdmin):
    list_display = ["reference", "rater", "score"]
    search_fields = ["release__dataset__slug", "rater"]
    raw_id_fields = ["release", "reference"]


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
