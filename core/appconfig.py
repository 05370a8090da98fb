"""The AppConfig every app of the product extends: when Django is ready, it imports the app's
modules of long work — Celery tasks (registered by name, since services send work by name and
never import them) and run kinds (each module's `register()` is called).

An app's apps.py imports this module, not the class: Django takes the one AppConfig subclass it
finds in apps.py, and would fall back to its default config if it found two. The app's label is
Django's default, the last part of its name ("annotate.rating" → "rating")."""

from __future__ import annotations

from importlib import import_module

from django.apps import AppConfig


class ProductAppConfig(AppConfig):
    # Dotted modules to import when ready, e.g. ("annotate.rating.tasks",).
    work_modules: tuple[str, ...] = ()

    def ready(self) -> None:
        for name in self.work_modules:
            register = getattr(import_module(name), "register", None)
            if callable(register):
                register()
