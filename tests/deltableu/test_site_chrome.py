"""What every page shares: the icon browsers ask for, and a log-in link that returns you."""

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_every_page_names_the_icon_and_favicon_ico_leads_to_it(client_for):
    page = client_for(None).get("/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg"' in page
    # Pages that name no icon (the admin, the API docs): browsers ask for /favicon.ico.
    response = client_for(None).get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (301, "/static/favicon.svg")
    assert "<svg" in Path(finders.find("favicon.svg")).read_text(encoding="utf-8")


def test_log_in_returns_to_the_page_it_was_clicked_on_but_not_to_itself(client_for):
    leaderboards = client_for(None).get("/leaderboards/").content.decode()
    assert 'href="/accounts/login/?next=/leaderboards/"' in leaderboards
    login = client_for(None).get("/accounts/login/").content.decode()
    assert 'href="/accounts/login/">Log in</a>' in login
