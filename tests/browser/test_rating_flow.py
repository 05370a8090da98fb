"""Raters rate with the keyboard in a real browser: references (reload and resume; the owner sees
the weights change) and a pairwise campaign on outputs (the owner sees its result)."""

import pytest
from playwright.sync_api import Page, expect

from annotate.rating.models import Rating, Weight
from tests.browser.test_import_flow import log_in
from tests.browser.test_rater_journey import press

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_rate_with_the_keyboard_resume_and_the_owner_sees_it(
    live_server, page: Page, browser, make_campaign, make_rater
):
    campaign = make_campaign(ratings_per_unit=2)
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


def test_a_pairwise_campaign_on_outputs_is_rated_with_the_keyboard_and_shows_results(
    live_server, page: Page, browser, owner, make_dataset, make_rater
):
    """The same rater page serves a campaign on outputs: two responses side by side, the keys
    1–5 and s, and the owner's dashboard turns the answers into a result for the pair."""
    from tests.annotate.output_campaign_kit import output_campaign, output_eval_dataset

    dataset, systems = output_eval_dataset(make_dataset, owner)
    campaign = output_campaign(dataset, owner, systems, mode="pairwise", control_rate=0)
    rater = make_rater()
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/r/{campaign.token}/")
    expect(page.locator("#output-a")).to_be_visible()
    expect(page.locator("#output-b")).to_be_visible()
    expect(page.get_by_text("A much better")).to_be_visible()
    press(page, "1")  # the left one much better
    expect(page.locator("#done-count")).to_have_text("1")
    press(page, "s")  # skip the second pair
    expect(page.get_by_text("Thank you")).to_be_visible()

    # The sides were drawn at random: the left one is system A's or system B's.
    answer = Rating.objects.get(campaign=campaign, status="done")
    won, mean = ("1 · 0 · 0", "2.00") if answer.a_on_left else ("0 · 0 · 1", "-2.00")
    owner_page = browser.new_context().new_page()
    log_in(owner_page, live_server.url, "owner")
    owner_page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    expect(owner_page.locator("#results")).to_contain_text(won)
    expect(owner_page.locator("#results")).to_contain_text(mean)


def test_without_javascript_the_rater_presses_start_then_answers(
    live_server, browser, make_campaign, make_rater
):
    """Items are leased by a POST the page's script sends; without scripts, its button does."""
    campaign = make_campaign()
    rater = make_rater()
    page = browser.new_context(java_script_enabled=False).new_page()
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/r/{campaign.token}/")
    page.get_by_role("button", name="Join and start rating").click()
    page.get_by_role("button", name="Start rating").click()
    candidate = page.locator("#candidate").inner_text()
    page.get_by_role("button", name="4").click()
    expect(page.locator("#done-count")).to_have_text("1")
    assert page.locator("#candidate").inner_text() != candidate  # the next item, at once
