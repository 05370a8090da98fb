"""Admin of evaluated systems, their outputs and imported judgments (campaigns that rate
outputs are in the rating admin)."""

from django.contrib import admin

from annotate.judgments.models import (
    ColumnMapping,
    EvalSystem,
    ExternalMetric,
    ExternalScore,
    Judgment,
    JudgmentSet,
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


@admin.register(ColumnMapping)
class ColumnMappingAdmin(admin.ModelAdmin):
    list_display = ["owner", "file", "header", "updated_at"]
    list_filter = ["file"]
    search_fields = ["owner__username"]
    raw_id_fields = ["owner"]


@admin.register(ExternalMetric)
class ExternalMetricAdmin(admin.ModelAdmin):
    # Without a judgment set: uploaded to a leaderboard (its link is listed with the boards).
    list_display = ["name", "judgment_set", "higher_is_better", "created_at"]
    list_select_related = ["judgment_set"]
    list_filter = [("judgment_set", admin.EmptyFieldListFilter)]
    search_fields = ["name", "judgment_set__name"]
    raw_id_fields = ["judgment_set"]


@admin.register(ExternalScore)
class ExternalScoreAdmin(admin.ModelAdmin):
    list_display = ["metric", "system", "external_id", "score"]
    search_fields = ["external_id", "system__name", "metric__name"]
    raw_id_fields = ["metric", "system"]
