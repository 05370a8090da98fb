"""What a crowd sees, read as a new rater (and the researcher handing out links) would read it:
the links keep their underscores, the counter counts towards the campaign's budget, the undo
button names the answer it would take back, and a tour link to another login says why the
log-in form is shown."""

import pytest
from playwright.sync_api import Page, expect

from annotate.rating.models import Campaign
from scoring.demo.selectors import Stop
from scoring.demo.templatetags.demo import tour_link
from tests.browser.test_import_flow import log_in
from tests.browser.test_rater_journey import press
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Where a text input's glyphs fall, from the font's own metrics: a single line sits centred in
# the box's content height, and an underscore is drawn below the baseline (its ink descent). The
# box clips what falls outside (an underscore clipped by one pixel reads as a space).
INK_OUTSIDE = """(id) => {
  const box = document.getElementById(id);
  const style = getComputedStyle(box);
  const context = document.createElement("canvas").getContext("2d");
  context.font = `${style.fontSize} ${style.fontFamily}`;
  const text = context.measureText(box.value);
  const height = box.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  const line = text.fontBoundingBoxAscent + text.fontBoundingBoxDescent;
  const baseline = (height - line) / 2 + text.fontBoundingBoxAscent;
  return {
    above: Math.max(0, text.actualBoundingBoxAscent - baseline),
    below: Math.max(0, baseline + text.actualBoundingBoxDescent - height),
  };
}"""


def test_the_rater_links_show_their_underscores(live_server, page: Page, make_campaign):
    campaign = make_campaign()
    Campaign.objects.filter(pk=campaign.pk).update(token="_DMY1_link_")
    log_in(page, live_server.url, "owner")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    for box, expected in (("join-url", "/r/_DMY1_link_/"), ("crowd-url", "PROLIFIC_PID")):
        assert expected in page.locator(f"#{box}").input_value()
        assert page.evaluate(INK_OUTSIDE, box) == {"above": 0, "below": 0}, box


def test_the_counter_counts_towards_the_campaigns_budget(
    live_server, page: Page, make_campaign, make_rater
):
    # Six references, three ratings each: 18 wanted, but the owner collects 4 at most.
    campaign = make_campaign(rating_budget=4)
    rater = make_rater(campaign)
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/rate/")
    expect(page.locator("#progress")).to_contain_text("campaign 0 / 4 ratings")
    press(page, "3")
    expect(page.locator("#progress")).to_contain_text("campaign 1 / 4 ratings")


def test_after_an_undo_the_button_names_no_answer_on_another_item(
    live_server, page: Page, make_campaign, make_rater
):
    campaign = make_campaign()
    rater = make_rater(campaign)
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/rate/")  # leased by the page's POST
    undo = page.locator("#undo button")
    press(page, "4")
    expect(page.locator("#done-count")).to_have_text("1")
    expect(undo).to_contain_text("you gave 4")
    second = page.locator("#candidate").inner_text()
    press(page, "2")
    expect(undo).to_contain_text("you gave 2")
    press(page, "u")
    expect(page.get_by_text("Your last answer was taken back")).to_be_visible()
    expect(page.locator("#candidate")).to_have_text(second)
    # On the undone item, the answer before (4, on the first item) is not offered.
    expect(undo).to_have_count(0)
    press(page, "5")
    expect(page.locator("#done-count")).to_have_text("2")
    expect(undo).to_contain_text("you gave 5")


def test_a_tour_link_to_another_login_says_whom_to_sign_in_as(
    live_server, page: Page, make_campaign, make_rater
):
    campaign = make_campaign()
    rater = make_rater(campaign)
    rate_page = f"/campaigns/{campaign.pk}/rate/"
    stop = Stop("Rate references yourself", rate_page, "keys 1–5", (rater.username, "raj"))
    log_in(page, live_server.url, "owner")
    page.goto(live_server.url + tour_link(stop, "owner"))
    notice = page.locator("#signed-in-as")
    expect(notice).to_contain_text("You are signed in as owner")
    expect(notice).to_contain_text(f"belongs to {rater.username} or raj, not to owner")
    page.get_by_label("Username").fill(rater.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{live_server.url}{rate_page}")
    expect(page.locator("#candidate")).to_be_visible()
