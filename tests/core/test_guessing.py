"""Password, API token and invitation guessing lock out (django-axes) after the limit; the
right secret from elsewhere still works, and nothing answers 500."""

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
LIMIT = 5


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT


def _login(client, password, address="192.0.2.1"):
    return client.post(
        "/accounts/login/", {"username": "owner", "password": password}, REMOTE_ADDR=address
    )


def test_the_login_page_locks_a_guessed_account_out_from_that_address(owner):
    client = Client()
    statuses = [_login(client, f"wrong-{k}").status_code for k in range(LIMIT + 1)]
    assert statuses[: LIMIT - 1] == [200] * (LIMIT - 1) and statuses[-1] == 429
    assert _login(client, PASSWORD).status_code == 429  # even the right password, meanwhile
    assert _login(Client(), PASSWORD, address="198.51.100.9").status_code == 302  # elsewhere


def test_the_token_endpoint_locks_out(owner):
    client = APIClient()
    statuses = [
        client.post(
            "/api/v1/auth/token/",
            {"username": "owner", "password": f"x{k}"},
            REMOTE_ADDR="192.0.2.2",
        ).status_code
        for k in range(LIMIT + 1)
    ]
    assert statuses[0] == 400 and statuses[-1] == 429
    right = client.post(
        "/api/v1/auth/token/", {"username": "owner", "password": PASSWORD}, REMOTE_ADDR="192.0.2.2"
    )
    assert right.status_code == 429


@pytest.mark.parametrize("fmt", ["json", "multipart"])
def test_a_nul_in_the_token_endpoints_username_is_a_400_not_a_500(owner, fmt):
    """PostgreSQL stores no NUL: the lockout lookup must never see one (schemathesis found it)."""
    body = {"username": "own\x00er", "password": PASSWORD}
    response = APIClient().post("/api/v1/auth/token/", body, format=fmt)
    assert response.status_code == 400
    assert (
        "NUL" in response.json()["detail"]
        if fmt == "json"
        else response.json() == {"username": ["Null characters are not allowed."]}
    )


def test_wrong_api_tokens_lock_the_address_out(owner):
    token = Token.objects.create(user=owner)
    client = APIClient()

    def me(key, address="192.0.2.3"):
        return client.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {key}", REMOTE_ADDR=address)

    assert me(token.key).status_code == 200
    statuses = [me(f"{k:040d}").status_code for k in range(LIMIT + 1)]
    assert statuses[0] in (401, 403) and statuses[-1] == 429
    assert me(token.key).status_code == 429
    assert "try again later" in me(token.key).json()["detail"]
    assert me(token.key, address="198.51.100.10").status_code == 200


def test_guessed_invitation_links_lock_out(owner):
    client = Client()
    statuses = [
        client.get(f"/invite/guess-{k}/", REMOTE_ADDR="192.0.2.4").status_code
        for k in range(LIMIT + 1)
    ]
    assert statuses[0] == 404 and statuses[-1] == 429
    assert client.get("/invite/any/", REMOTE_ADDR="198.51.100.11").status_code == 404
