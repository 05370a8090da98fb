"""A lock wait that runs out is a 503 with Retry-After (a page, the API's JSON), never a 500.

The SQLite tests hold the real write lock from a second connection (`BEGIN IMMEDIATE` on the
test database's file) while the request's connection waits a short busy timeout; they run where
the test database is SQLite (`make test`'s default). The PostgreSQL test takes a table lock from
a second connection and lets the request's `lock_timeout` run out.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg2
import pytest
from django.db import OperationalError, connection

from annotate.datasets.services.datasets import dataset_import_file
from annotate.datasets.services.demo import DEMO_FILE
from annotate.rating.models import Rating, RatingStatus
from annotate.rating.services.assignment import rating_next
from core.database_busy import RETRY_AFTER_SECONDS, is_database_busy
from tests.conftest import log_in

BUSY_TIMEOUT_MS = 200  # the request's own wait, short so that the test is quick


def test_only_a_lock_wait_counts_as_busy():
    assert is_database_busy(OperationalError("database is locked"))
    assert is_database_busy(OperationalError("database table is locked: rating_rating"))
    assert not is_database_busy(OperationalError("no such table: rating_rating"))
    assert not is_database_busy(ValueError("database is locked"))
    wrapped = OperationalError("canceling statement due to lock timeout")
    wrapped.__cause__ = type("LockNotAvailable", (Exception,), {"pgcode": "55P03"})()
    assert is_database_busy(wrapped)


@contextmanager
def write_lock_held_elsewhere() -> Iterator[None]:
    """Another connection holds the database's write lock; this one waits BUSY_TIMEOUT_MS."""
    if connection.vendor == "sqlite":
        other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        try:
            yield
        finally:
            other.rollback()
            other.close()
            with connection.cursor() as cursor:
                waits = 1000 * connection.settings_dict["OPTIONS"]["timeout"]
                cursor.execute(f"PRAGMA busy_timeout = {waits}")
        return
    other_params = connection.get_connection_params()
    other = psycopg2.connect(
        dbname=other_params["dbname"],
        user=other_params.get("user"),
        host=other_params.get("host"),
        port=other_params.get("port"),
        password=other_params.get("password"),
    )
    with other.cursor() as cursor:  # psycopg2 opens a transaction: the lock is held until rollback
        cursor.execute(f"LOCK TABLE {Rating._meta.db_table} IN ACCESS EXCLUSIVE MODE")
    with connection.cursor() as cursor:
        cursor.execute(f"SET lock_timeout = {BUSY_TIMEOUT_MS}")
    try:
        yield
    finally:
        other.rollback()
        other.close()
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")


@pytest.fixture
def leased(make_dataset, make_campaign, make_rater):
    """A rater with a leased rating of a small campaign: (rater, rating)."""
    dataset = make_dataset(slug="busy", data=None)
    dataset_import_file(
        dataset=dataset, lines=DEMO_FILE.read_bytes().splitlines(keepends=True)[:2], fmt="jsonl"
    )
    campaign = make_campaign(dataset=dataset)
    rater = make_rater(campaign)
    return rater, rating_next(campaign=campaign, rater=rater)


def assert_busy_answer(response) -> None:
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)


@pytest.mark.django_db(transaction=True)
def test_an_api_write_that_finds_the_database_locked_is_a_503_to_retry(client, leased):
    rater, rating = leased
    log_in(client, rater)
    with write_lock_held_elsewhere():
        response = client.post(f"/api/v1/ratings/{rating.pk}/", {"score": 3})
    assert_busy_answer(response)
    assert response.json() == {"detail": response.json()["detail"]}
    assert "busy" in response.json()["detail"]
    assert Rating.objects.get(pk=rating.pk).status == RatingStatus.LEASED  # nothing was changed
    # Sent again once the lock is gone, as the answer says, it goes through.
    assert client.post(f"/api/v1/ratings/{rating.pk}/", {"score": 3}).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_page_write_that_finds_the_database_locked_is_a_friendly_503(client, leased):
    rater, rating = leased
    log_in(client, rater)
    answer = f"/campaigns/{rating.campaign_id}/rate/{rating.pk}/"
    with write_lock_held_elsewhere():
        response = client.post(answer, {"score": 3})
    assert_busy_answer(response)
    page = response.content.decode()
    assert "Busy for a moment" in page and "send it again" in page
    assert 'http-equiv="refresh"' not in page  # a POST is not sent again behind the rater's back
    assert client.post(answer, {"score": 3}).status_code == 302


def test_a_busy_get_page_reloads_itself(rf):
    from core.database_busy import database_busy_response

    page = database_busy_response(rf.get("/campaigns/1/rate/")).content.decode()
    assert f'<meta http-equiv="refresh" content="{RETRY_AFTER_SECONDS}">' in page
