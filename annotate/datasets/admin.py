from django.contrib import admin

from annotate.datasets.models import Dataset, Item, Reference, Split


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
