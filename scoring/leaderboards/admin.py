from django.contrib import admin
from django.db import models, transaction

from scoring.leaderboards.models import Leaderboard, LeaderboardMetric, Score, Submission, Team
from scoring.leaderboards.services.external_metrics import leaderboard_metrics_forget


@admin.register(Leaderboard)
class LeaderboardAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "release", "split", "primary_metric", "is_public", "is_open"]
    list_filter = ["split", "is_public", "is_open", "primary_metric"]
    search_fields = ["name", "slug", "release__dataset__slug"]
    raw_id_fields = ["release", "owner"]

    @transaction.atomic
    def delete_model(self, request, obj):
        leaderboard_metrics_forget(leaderboards=[obj])
        super().delete_model(request, obj)

    @transaction.atomic
    def delete_queryset(self, request, queryset):
        leaderboard_metrics_forget(leaderboards=list(queryset))
        super().delete_queryset(request, queryset)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "created_by", "created_at"]
    list_select_related = ["created_by"]
    search_fields = ["name", "members__username"]
    filter_horizontal = ["members"]
    raw_id_fields = ["created_by"]


class ScoreInline(admin.TabularInline):
    model = Score
    extra = 0
    fields = ["metric", "score", "ci_low", "ci_high", "signature"]
    readonly_fields = ["metric", "score", "ci_low", "ci_high", "signature"]


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = [
        "method",
        "team",
        "leaderboard",
        "status",
        "listing",
        "progress",
        "submitted_at",
    ]
    list_filter = ["status", "listing", "is_baseline", "leaderboard"]
    list_select_related = ["team", "leaderboard", "run"]
    search_fields = ["method", "team__name", "submitted_by__username"]
    raw_id_fields = ["leaderboard", "team", "submitted_by", "run", "listing_changed_by"]
    readonly_fields = ["submitted_at", "finished_at"]
    inlines = [ScoreInline]
    # A paper's address typed without its scheme is an https one, as on the submission form.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ["submission", "metric", "score", "ci_low", "ci_high", "created_at"]
    list_filter = ["metric"]
    search_fields = ["signature", "submission__method"]
    raw_id_fields = ["submission"]


@admin.register(LeaderboardMetric)
class LeaderboardMetricAdmin(admin.ModelAdmin):
    """Which board holds an uploaded metric; the metric and its scores are the judgments'
    (ExternalMetric, ExternalScore), and deleting the metric there removes this link too."""

    list_display = ["metric", "leaderboard", "uploaded_by", "created_at"]
    list_select_related = ["metric", "leaderboard", "uploaded_by"]
    search_fields = ["metric__name", "leaderboard__slug"]
    raw_id_fields = ["leaderboard", "metric", "uploaded_by"]
