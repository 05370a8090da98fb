"""Headless Chromium from Debian's packages, driven by Playwright (it cannot download browsers)."""

import importlib
import os
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))


def pytest_collection_modifyitems(config, items):
    if CHROMIUM.exists():
        return
    if os.environ.get("CI") == "true":
        raise pytest.UsageError(
            f"CI needs {CHROMIUM} for the browser tests (apt-get install chromium)."
        )
    reason = f"{CHROMIUM} is missing: `make test` installs it when run as root"
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
        ],
    }


@pytest.fixture
def removable_releases(transactional_db):
    """Lets a transactional test end on SQLite after it published releases.

    The flush that ends such a test deletes rows one by one there (PostgreSQL truncates,
    which fires no row trigger), and the immutability triggers refuse. This removes the
    releases with the triggers off, then puts the triggers back for the tests that follow.
    """
    yield
    from django.db import connection

    if connection.vendor != "sqlite":
        return
    from annotate.models import Release, ReleaseItem, ReleaseRating, ReleaseReference
    from scoring.models import Leaderboard

    triggers = importlib.import_module("annotate.migrations.0005_releases")
    with connection.cursor() as cursor:
        for statement in triggers._drop_sql("sqlite"):
            cursor.execute(statement)
        try:
            Leaderboard.objects.all().delete()
            for model in (ReleaseRating, ReleaseReference, ReleaseItem, Release):
                model.objects.all().delete()
        finally:
            for statement in triggers._sqlite_sql():
                cursor.execute(statement)


# Scoring in the browser tests happens in a real Celery worker on the test database.
from tests.integration.conftest import celery_worker_process  # noqa: E402, F401
