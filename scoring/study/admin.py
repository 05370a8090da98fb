"""Admin of correlation studies."""

from __future__ import annotations

from django.contrib import admin

from scoring.study.models import CorrelationStudy


@admin.register(CorrelationStudy)
class CorrelationStudyAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "release", "split", "created_at"]
    list_filter = ["split"]
    search_fields = ["name", "release__dataset__slug"]
    raw_id_fields = ["run"]
