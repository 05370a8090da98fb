"""Admin of human evaluation of outputs."""

from django.contrib import admin

from annotate.models import (
    EvalSystem,
    Judgment,
    JudgmentSet,
    OutputCampaign,
    OutputCampaignRater,
    OutputRating,
    OutputSlot,
    SystemOutput,
)


@admin.register(EvalSystem)
class EvalSystemAdmin(admin.ModelAdmin):
    list_display = ["name", "dataset", "source", "source_ref", "created_at"]
    list_filter = ["source"]
    search_fields = ["name", "dataset__slug"]


@admin.register(SystemOutput)
class SystemOutputAdmin(admin.ModelAdmin):
    list_display = ["system", "split", "external_id"]
    list_filter = ["split"]
    search_fields = ["external_id", "text", "system__name"]
    raw_id_fields = ["system", "item"]


@admin.register(JudgmentSet)
class JudgmentSetAdmin(admin.ModelAdmin):
    list_display = ["name", "dataset", "split", "owner", "created_at"]
    search_fields = ["name", "dataset__slug"]


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = ["judgment_set", "judge", "external_id", "system", "criterion", "score"]
    list_filter = ["criterion"]
    search_fields = ["judge", "external_id", "system__name"]
    raw_id_fields = ["judgment_set", "system"]


@admin.register(OutputCampaign)
class OutputCampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "dataset", "mode", "split", "is_open", "created_at"]
    list_filter = ["mode", "is_open"]
    search_fields = ["name", "dataset__slug"]


@admin.register(OutputCampaignRater)
class OutputCampaignRaterAdmin(admin.ModelAdmin):
    list_display = ["campaign", "rater", "qc_status", "joined_at"]
    list_filter = ["qc_status"]
    search_fields = ["rater__username", "campaign__name"]


@admin.register(OutputSlot)
class OutputSlotAdmin(admin.ModelAdmin):
    list_display = ["campaign", "item", "system_a", "system_b", "active", "wanted"]
    # system_b is nullable, which Django's default select_related() leaves out.
    list_select_related = ["campaign", "item", "system_a", "system_b"]
    search_fields = ["campaign__name", "item__external_id"]
    raw_id_fields = ["campaign", "item", "system_a", "system_b"]


@admin.register(OutputRating)
class OutputRatingAdmin(admin.ModelAdmin):
    list_display = ["campaign", "rater", "slot", "a_on_left", "status", "score", "preference"]
    list_filter = ["status", "a_on_left"]
    search_fields = ["rater__username", "campaign__name"]
    raw_id_fields = ["campaign", "slot", "rater"]
