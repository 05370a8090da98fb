"""Loaded with `-p tests.environment` before pytest-django reads the settings.

Tests keep their files (SQLite database, file broker) apart from a `make run` instance, and run
with DEBUG's relaxed transport security (no HTTPS redirect for the test client).
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("VAR_DIR", str(ROOT / "var" / "test"))
os.environ.setdefault("DEBUG", "True")
# Playwright's sync API runs an event loop in the test thread; the ORM calls made beside it in
# the same thread are safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
