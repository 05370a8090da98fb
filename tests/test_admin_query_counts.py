"""Every admin changelist of the project runs as many queries for three times the rows."""

import pytest
from django.contrib import admin
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.annotate.test_admin import OWN_APPS
from tests.query_world import _own_storage, build_world, grow  # noqa: F401

# slow: every changelist at two sizes of one world (make test and CI, not test-fast)
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# Ours, and Django's users and groups; the other apps' admins (axes, celery) are theirs.
APPS = {*OWN_APPS, "runs", "auth"}
MODELS = sorted(
    (model for model in admin.site._registry if model._meta.app_label in APPS),
    key=lambda model: model._meta.label,
)


def changelists(client) -> dict[str, tuple[int, int]]:
    """(queries, rows) of each changelist."""
    measured = {}
    for model in MODELS:
        meta = model._meta
        url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, url
        measured[meta.label] = (len(queries), model._default_manager.count())
    return measured


def test_no_changelist_makes_a_query_per_row(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        world = build_world()
        grow(world, 0)
        client.force_login(world.owner)
        few = changelists(client)
        grow(world, 1)
        grow(world, 2)
        more = changelists(client)
    assert [label for label in few if more[label][1] <= few[label][1]] == []  # rows grew
    grew = {
        label: (few[label][0], more[label][0]) for label in few if more[label][0] > few[label][0]
    }
    assert grew == {}, "queries (one unit of rows → three)"
