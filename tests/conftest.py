"""Shared fixtures: an owner, a teammate-less outsider, a rater and staff, and their clients."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from annotate.models import Role, Visibility
from annotate.services.accounts import user_create
from annotate.services.datasets import dataset_create, dataset_import_file

# Fixtures of one area, kept beside its tests rather than in this file.
pytest_plugins = ["tests.mining_fixtures"]

PASSWORD = "a-long-test-password-42"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # Real hashing costs ~0.3 s a user; tests make hundreds of users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_throttle_counts():
    # Throttle counters live in the cache; one test's requests must not throttle the next.
    cache.clear()


@pytest.fixture
def owner(db):
    return user_create(username="owner", password=PASSWORD, role=Role.RESEARCHER)


@pytest.fixture
def other(db):
    return user_create(username="other", password=PASSWORD, role=Role.RESEARCHER)


@pytest.fixture
def rater(db):
    return user_create(username="rater", password=PASSWORD, role=Role.RATER)


@pytest.fixture
def staff(db):
    return user_create(username="staff", password=PASSWORD, role=Role.RESEARCHER, is_staff=True)


def _client_for(user):
    client = APIClient()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def client_for():
    """`client_for(user)` gives a logged-in client; `client_for(None)` an anonymous one."""
    return _client_for


@pytest.fixture
def make_dataset(owner):
    def make(*, slug="chat", visibility=Visibility.PRIVATE, user=None, data="small.jsonl"):
        dataset = dataset_create(
            owner=user or owner, name=slug.title(), slug=slug, visibility=visibility
        )
        if data:
            with (DATA / data).open("rb") as lines:
                dataset_import_file(dataset=dataset, lines=lines, fmt="jsonl")
        return dataset

    return make
