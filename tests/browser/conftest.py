"""Headless Chromium from Debian's packages, driven by Playwright (it cannot download browsers)."""

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


@pytest.fixture(scope="session", autouse=True)
def _browser_and_server_end_before_the_database(django_db_setup, live_server, browser):
    # Set up in this order, torn down in the reverse: Chromium closes its keep-alive sockets
    # first, so the live server's request threads end and close their database connections
    # before the test database is dropped (PostgreSQL refuses to drop a database in use).
    yield
