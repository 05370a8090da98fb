"""Loaded with `-p tests.environment` before pytest-django reads the settings.

Tests keep their files (SQLite database, file broker) apart from a `make run` instance, and run
with DEBUG's relaxed transport security (no HTTPS redirect for the test client).
"""

import gc
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("VAR_DIR", str(ROOT / "var" / "test"))
os.environ.setdefault("DEBUG", "True")
# Playwright's sync API runs an event loop in the test thread; the ORM calls made beside it in
# the same thread are safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
# Keep the compiled project and test modules (git ignores __pycache__) even where
# PYTHONDONTWRITEBYTECODE is set, as on these machines and in the image: otherwise every run,
# and each of `make test-fast`'s workers, compiles them all again (2-3 s of CPU a process).
# Set here, before Django and the tests are imported; processes the tests start are unchanged.
sys.dont_write_bytecode = False
# The cyclic garbage collector runs less often, from the start and for the whole run: importing
# Django, the project and ~170 test modules alone made ~700 of its collections a process (0.25 s)
# before conftest.py's `pytest_collection_finish` freezes what was imported.
gc.set_threshold(10_000, 20, 20)
