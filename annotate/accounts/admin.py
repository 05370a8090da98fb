"""Admin of accounts: profiles (roles) and invitations."""

from __future__ import annotations

from django.contrib import admin

from annotate.accounts.models import Invitation, Profile


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
