"""Headless Chromium from Debian's packages, driven by Playwright (it cannot download browsers)."""

import os
import threading
from pathlib import Path

import pytest
from django.db import connections

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
REQUEST_THREAD_END_SECONDS = 10


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


@pytest.fixture(scope="session")
def _request_threads_end(django_db_setup):
    """Torn down after the live server and before the test database: waits for the server's
    request threads, which close their database connections as their sockets close."""
    yield
    for thread in threading.enumerate():
        if thread.name.endswith("(process_request_thread)"):
            thread.join(timeout=REQUEST_THREAD_END_SECONDS)


@pytest.fixture(scope="session", autouse=True)
def _browser_and_server_end_before_the_database(_request_threads_end, live_server, browser):
    # Set up in this order, torn down in the reverse: Chromium closes its keep-alive sockets
    # first, then the live server stops, and its request threads have ended before the test
    # database is dropped (PostgreSQL refuses to drop a database in use; 12 connections were
    # left open before).
    yield
    # While Playwright's session lasts, its event loop counts as running in this thread, and
    # Django's connection handler (asgiref's Local) then keeps this thread's connections in a
    # context-local store instead of the thread-local one: every test from the first browser
    # test on ran on a second connection, which nothing closed once the loop stopped (an idle
    # session left on the test database at the end of every full run). This teardown runs
    # before Playwright's own, while that store is still the one in use.
    connections.close_all()
