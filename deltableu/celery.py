"""The Celery application; its configuration lives in settings under the CELERY_ namespace."""

import os
import sys

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "deltableu.settings")

app = Celery("deltableu")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def worker_command(*, loglevel: str, concurrency: int, queues: str, name: str = "") -> list[str]:
    """The argv of a `celery worker` of this project on the running interpreter, taking
    `queues` (comma-separated), as the tests and benchmarks start one (without gossip and
    mingle: a lone worker has nobody to hear, and they slow its start)."""
    return [
        *(sys.executable, "-m", "celery", "-A", "deltableu", "worker"),
        *("-l", loglevel, "--concurrency", str(concurrency), "-Q", queues),
        *(("-n", name) if name else ()),
        *("--without-gossip", "--without-mingle"),
    ]
