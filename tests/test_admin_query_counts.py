"""Every admin changelist of the project runs as many queries for three times the rows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.admin_kit import ADMIN_MODELS, admin_url
from tests.query_world import _own_storage, build_world, grow  # noqa: F401

# slow: every changelist at two sizes of one world (make test and CI, not test-fast)
pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def changelists(client) -> dict[str, tuple[int, int]]:
    """(queries, rows) of each changelist."""
    measured = {}
    for model in ADMIN_MODELS:
        url = admin_url(model, "changelist")
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, url
        measured[model._meta.label] = (len(queries), model._default_manager.count())
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
