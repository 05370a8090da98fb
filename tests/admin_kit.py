"""The project's models in the Django admin, and the admin's URLs for them, for the tests that
walk every admin page."""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin
from django.urls import reverse

# The project's own apps (a model added to one of them must be in the admin).
OWN_APPS = (
    "accounts",
    "datasets",
    "mining",
    "judgments",
    "rating",
    "releases",
    "leaderboards",
    "study",
)
# What the admin walks hold to: ours, the run engine's, and Django's users and groups; the other
# apps' admins (axes, celery) are theirs.
ADMIN_MODELS = sorted(
    (
        model
        for model in admin.site._registry
        if model._meta.app_label in {*OWN_APPS, "runs", "auth"}
    ),
    key=lambda model: model._meta.label,
)


def own_models() -> list:
    return [m for m in apps.get_models() if m._meta.app_label in OWN_APPS]


def admin_url(model, view: str, *args: object) -> str:
    """The admin's `view` (changelist, add, change, delete) of `model`."""
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)
