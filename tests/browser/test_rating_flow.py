"""A rater rates five references with the keyboard, reloads and resumes; the owner sees the
progress and the weights change."""

import pytest
from playwright.sync_api import Page, expect

from annotate.models import Weight
from tests.browser.test_import_flow import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_rate_with_the_keyboard_resume_and_the_owner_sees_it(
    live_server, page: Page, browser, make_campaign, make_rater
):
    campaign = make_campaign(ratings_per_reference=2)
    rater = make_rater(campaign)
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/rate/")
    for n, key in enumerate("54321", start=1):
        candidate = page.locator("#candidate").inner_text()
        page.keyboard.press(key)
        expect(page.locator("#done-count")).to_have_text(str(n))
        assert page.locator("#candidate").inner_text() != candidate
    current = page.locator("#candidate").inner_text()
    page.reload()
    expect(page.locator("#done-count")).to_have_text("5")
    expect(page.locator("#candidate")).to_have_text(current)  # the same lease, resumed

    scores = sorted(Weight.objects.filter(campaign=campaign).values_list("weight", flat=True))
    assert scores == [-1.0, -0.5, 0.0, 0.5, 1.0]

    owner_page = browser.new_context().new_page()
    log_in(owner_page, live_server.url, "owner")
    owner_page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    expect(owner_page.get_by_text("5 of 12 ratings")).to_be_visible()
    response = owner_page.request.get(f"{live_server.url}/api/v1/campaigns/{campaign.pk}/weights/")
    weights = [row["weight"] for row in response.json()["results"] if row["n"]]
    assert sorted(weights) == [-1.0, -0.5, 0.0, 0.5, 1.0]
