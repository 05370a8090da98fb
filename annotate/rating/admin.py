"""Admin pages of rating campaigns."""

from django.contrib import admin, messages
from django.core.exceptions import ValidationError

from annotate.rating.models import WEIGHT_STATISTICS, Campaign, CampaignRater, Rating, Slot, Weight
from annotate.rating.services.lifecycle import campaign_transition


class CampaignRaterInline(admin.TabularInline):
    model = CampaignRater
    extra = 0
    fields = ["rater", "crowd_id", "qc_status", "qc_reasons", "joined_at"]
    readonly_fields = ["joined_at"]
    raw_id_fields = ["rater"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "dataset", "split", "subject", "mode", "assignment", "owner", "status"]
    # split is nullable (the default select_related() skips it) and names its dataset.
    list_select_related = ["dataset", "split__dataset", "owner"]
    list_filter = ["subject", "mode", "assignment", "status", "dataset"]
    search_fields = ["name", "dataset__slug", "owner__username", "token"]
    raw_id_fields = ["owner", "dataset", "split"]
    # Status moves through the lifecycle service (the actions below), never by editing it.
    readonly_fields = [
        *("subject", "mode", "token", "status", "status_changed_at", "created_at"),
        *("adaptive_a", "priorities_refreshed_at", "priorities_summary"),
    ]
    filter_horizontal = ["systems"]
    inlines = [CampaignRaterInline]
    actions = ["open_campaigns", "close_campaigns"]

    def _move(self, request, queryset, action: str) -> None:
        for campaign in queryset:
            try:
                campaign_transition(campaign=campaign, action=action)
            except ValidationError as exc:
                self.message_user(request, f"{campaign}: {' '.join(exc.messages)}", messages.ERROR)

    @admin.action(description="Open (a draft, or a closed campaign again)")
    def open_campaigns(self, request, queryset) -> None:
        self._move(request, queryset, "open")

    @admin.action(description="Close (no new items go out)")
    def close_campaigns(self, request, queryset) -> None:
        self._move(request, queryset, "close")


@admin.register(CampaignRater)
class CampaignRaterAdmin(admin.ModelAdmin):
    list_display = ["rater", "campaign", "crowd_id", "qc_status", "joined_at"]
    list_filter = ["qc_status", "campaign"]
    search_fields = ["rater__username", "crowd_id", "campaign__name"]
    raw_id_fields = ["rater", "campaign"]


@admin.register(Slot)
class SlotAdmin(admin.ModelAdmin):
    list_display = [
        *("campaign", "item", "reference", "system_a", "system_b"),
        *("active", "wanted", "sensitivity"),
    ]
    # reference and the systems are nullable, which the default select_related() leaves out.
    list_select_related = ["campaign", "item", "reference", "system_a", "system_b"]
    list_filter = ["campaign"]
    search_fields = ["reference__text", "item__external_id", "campaign__name"]
    raw_id_fields = ["campaign", "item", "reference", "system_a", "system_b"]


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ["slot", "rater", "campaign", "kind", "status", "score", "preference", "counted"]
    list_filter = ["kind", "status", "counted", "flag", "campaign"]
    search_fields = ["slot__reference__text", "control_text", "rater__username"]
    raw_id_fields = ["slot", "rater", "campaign", "donor_item"]
    readonly_fields = ["started_at", "finished_at", "lease_expires_at"]
    list_select_related = ["slot", "rater", "campaign"]


@admin.register(Weight)
class WeightAdmin(admin.ModelAdmin):
    list_display = ["reference", "campaign", "n", "mean", "sd", "weight", "z_weight"]
    # What it weighs first: the model lists its statistics first (an abstract base's fields).
    fields = ["campaign", "reference", *WEIGHT_STATISTICS]
    list_filter = ["campaign"]
    search_fields = ["reference__text"]
    raw_id_fields = ["reference", "campaign"]
    list_select_related = ["reference", "campaign"]
