"""DeltaBLEU Studio Django project; importing it loads the Celery app so tasks bind to it."""

from deltableu.celery import app as celery_app

__all__ = ("celery_app",)
