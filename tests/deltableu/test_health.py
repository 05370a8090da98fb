"""/healthz says whether the database and the broker answer, and which one does not."""

import pytest
from django.db import OperationalError
from django.urls import reverse

from deltableu.celery import app

pytestmark = pytest.mark.django_db


def test_healthy(client_for):
    response = client_for(None).get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}


def test_a_broker_that_does_not_answer_is_named(client_for, monkeypatch):
    # A real connection attempt to a port where nothing listens.
    # Celery reads CELERY_BROKER_URL from the environment before its own settings.
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:9/0")
    monkeypatch.setitem(app.conf, "broker_url", "redis://127.0.0.1:9/0")
    monkeypatch.setitem(app.conf, "broker_transport_options", {})
    # The check's retry is still made, without kombu's 2 s pause before it.
    monkeypatch.setattr("kombu.utils.functional.sleep", lambda seconds: None)
    response = client_for(None).get(reverse("healthz"))
    assert response.status_code == 503
    body = response.json()
    assert body["database"] == "ok"
    assert body == {"status": "down", "database": "ok", "broker": "down"}


def test_a_database_that_does_not_answer_is_named(client_for, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr("deltableu.health.connection.cursor", refuse)
    response = client_for(None).get(reverse("healthz"))
    # Which component, and nothing more: the exception's text goes to the log only.
    assert response.json() == {"status": "down", "database": "down", "broker": "ok"}
    assert "refused" not in response.content.decode()
