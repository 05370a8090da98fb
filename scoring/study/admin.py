"""Admin of correlation studies."""

from __future__ import annotations

from django.contrib import admin

from scoring.study.models import CorrelationStudy


@admin.register(CorrelationStudy)
class CorrelationStudyAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "dataset", "weight_source", "release", "split", "created_at"]
    list_filter = ["split", "weight_source"]
    list_select_related = ["owner", "dataset", "release__dataset"]
    search_fields = ["name", "dataset__slug"]
    raw_id_fields = ["run"]
