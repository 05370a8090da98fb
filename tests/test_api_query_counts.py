"""Every list of the REST API runs as many queries for three times the rows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import get_resolver, reverse
from rest_framework.test import APIClient

from tests.query_world import World, _own_storage, build_world, grow  # noqa: F401
from tests.schema_kit import api_schema

pytestmark = pytest.mark.django_db

OWNER, ANYONE, PARTICIPANT = ("owner",), ("owner", "anonymous"), ("participant",)
# (url name, its arguments from the world, who asks) for each list endpoint.
LISTS = [
    ("api-datasets", lambda w: {}, ANYONE),
    ("api-dataset-items", lambda w: {"slug": w.dataset.slug}, ANYONE),
    ("api-dataset-export", lambda w: {"slug": w.dataset.slug}, ANYONE),
    ("api-releases", lambda w: {"slug": w.dataset.slug}, ANYONE),
    ("api-campaigns", lambda w: {}, OWNER),
    ("api-campaign-ratings", lambda w: {"campaign_id": w.campaign.pk}, OWNER),
    ("api-campaign-quality", lambda w: {"campaign_id": w.campaign.pk}, OWNER),
    ("api-campaign-weights", lambda w: {"campaign_id": w.campaign.pk}, OWNER),
    ("api-campaign-results", lambda w: {"campaign_id": w.outputs.pk}, OWNER),
    ("api-my-campaigns", lambda w: {}, PARTICIPANT),
    ("api-mined-candidates", lambda w: {"slug": w.dataset.slug}, OWNER),
    ("api-corpora", lambda w: {}, OWNER),
    ("api-leaderboards", lambda w: {}, ANYONE),
    ("api-leaderboard", lambda w: {"slug": w.board.slug}, ANYONE),
    ("api-leaderboard-export", lambda w: {"slug": w.board.slug}, ANYONE),
    ("api-submissions", lambda w: {"slug": w.board.slug}, PARTICIPANT),
    ("api-teams", lambda w: {}, PARTICIPANT),
    ("api-studies", lambda w: {}, OWNER),
    ("api-judgment-set-metrics", lambda w: {"judgment_set_id": w.judgment_set.pk}, OWNER),
    ("api-board-metrics", lambda w: {"slug": w.board.slug}, OWNER),
    ("api-runs", lambda w: {}, OWNER),
]


def measure(world: World) -> dict[str, tuple[int, int]]:
    """(queries, bytes of the answer) of each list, for each of its callers."""
    clients = {"owner": APIClient(), "participant": APIClient(), "anonymous": APIClient()}
    clients["owner"].force_login(world.owner)
    clients["participant"].force_login(world.participant)
    measured = {}
    for name, arguments, viewers in LISTS:
        url = reverse(name, kwargs=arguments(world))
        for who in viewers:
            client = clients[who]
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
                body = (
                    b"".join(response.streaming_content) if response.streaming else response.content
                )
            assert response.status_code == 200, (name, who, body[:300])
            measured[f"{name} ({who})"] = (len(queries), len(body))
    return measured


def _schema_path(url_name: str) -> str:
    """The path the schema gives the route of that name: /api/v1/campaigns/{campaign_id}/…"""
    ((bits, *_), *_) = get_resolver().reverse_dict.getlist(url_name)
    template, params = bits[0]
    return "/" + template % {param: f"{{{param}}}" for param in params}


def test_every_list_of_the_schema_is_measured():
    schema = api_schema()
    lists = {
        path
        for path, operations in schema["paths"].items()
        if operations.get("get", {}).get("operationId", "").endswith("_list")
    }
    measured = {_schema_path(name) for name, *_ in LISTS}
    assert len(lists) >= 14
    assert lists - measured == set()


@pytest.mark.slow  # every list endpoint at two sizes of one world (make test and CI)
def test_no_list_makes_a_query_per_row(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        world = build_world()
        grow(world, 0)
        few = measure(world)
        grow(world, 1)
        grow(world, 2)
        more = measure(world)
    assert [name for name in few if more[name][1] <= few[name][1]] == []  # the answers grew
    grew = {name: (few[name][0], more[name][0]) for name in few if more[name][0] > few[name][0]}
    assert grew == {}, "queries (one unit of rows → three)"
