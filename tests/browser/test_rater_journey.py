"""A rater's whole journey in a real browser: the researcher makes an invitation into a campaign;
a new person follows it, signs up, rates with the keyboard, undoes one answer, finishes with a
completion code they copy, and finds the campaign under "My campaigns"; the researcher checks the
code they hand in. Screenshots of the key
pages go to the test's output directory (test-results/…)."""

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from annotate.rating.models import Rating, RatingStatus, Weight
from tests.browser.test_import_flow import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_PASSWORD = "a-rater-of-many-words-7"


# Sets window.copiedShown once a copy button's label becomes "Copied".
WATCH_COPIED = """() => {
  const observer = new MutationObserver(() => {
    if ([...document.querySelectorAll("button[data-copy]")].some(b => b.textContent === "Copied"))
      window.copiedShown = true;
  });
  observer.observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def shot(page: Page, folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def press(page: Page, key: str) -> None:
    """Press a key once the page's script listens: a page's text shows before its script runs."""
    page.wait_for_load_state("load")
    page.keyboard.press(key)


def invitation_link(page: Page, base: str, campaign) -> str:
    """The researcher makes an invitation into the campaign on its dashboard."""
    log_in(page, base, "owner")
    page.goto(f"{base}/campaigns/{campaign.pk}/")
    page.get_by_label("People without an account").fill("3")
    page.get_by_role("button", name="Create an invitation").click()
    expect(page.get_by_text("Invitation created")).to_be_visible()
    return page.locator("td code").first.inner_text()


def test_a_new_rater_follows_an_invitation_to_a_completion_code(
    live_server, browser, make_campaign, output_path
):
    screenshots = Path(output_path)
    # One rating per reference and no speed check: a test answers faster than any person.
    campaign = make_campaign(name="Weekend chat", ratings_per_unit=1, qc_min_seconds=0)
    owner_page = browser.new_context().new_page()
    link = invitation_link(owner_page, live_server.url, campaign)
    assert link.startswith(f"{live_server.url}/invite/")

    context = browser.new_context(
        permissions=["clipboard-read", "clipboard-write"], viewport={"width": 1000, "height": 800}
    )
    page = context.new_page()
    page.goto(link)
    expect(page.get_by_role("heading", name="Join as a rater")).to_be_visible()
    expect(page.get_by_role("link", name="Log in instead")).to_be_visible()
    page.get_by_label("Username").fill("weekend-rater")
    page.get_by_label("Email").fill("rater@example.org")
    page.locator("#id_password").fill(NEW_PASSWORD)
    page.get_by_label("Password (again)").fill(NEW_PASSWORD)
    shot(page, screenshots, "1-signup")
    page.get_by_role("button", name="Create account").click()

    # Signed up, joined and on the first item at once.
    expect(page).to_have_url(f"{live_server.url}/campaigns/{campaign.pk}/rate/")
    expect(page.get_by_text("Welcome, weekend-rater.")).to_be_visible()
    for n, key in enumerate("423", start=1):
        press(page, key)
        expect(page.locator("#done-count")).to_have_text(str(n))
    shot(page, screenshots, "2-rate-with-undo")

    third = Rating.objects.filter(status=RatingStatus.DONE).latest("finished_at")
    assert third.score == 3
    assert Weight.objects.get(reference_id=third.slot.reference_id).weight == 0.0
    press(page, "u")
    expect(page.get_by_text("Your last answer was taken back")).to_be_visible()
    expect(page.locator("#done-count")).to_have_text("2")
    expect(page.locator("#candidate")).to_have_text(third.slot.reference.text)
    shot(page, screenshots, "3-after-undo")
    press(page, "5")  # the answer it should have had
    expect(page.locator("#done-count")).to_have_text("3")
    assert Rating.objects.get(pk=third.pk).score == 5
    assert Weight.objects.get(reference_id=third.slot.reference_id).weight == 1.0

    for n, key in enumerate("41", start=4):
        press(page, key)
        expect(page.locator("#done-count")).to_have_text(str(n))
    press(page, "2")  # the last one
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    code = page.locator("#completion-code").inner_text()
    assert len(code) == 10
    expect(page.locator("#account-done")).to_contain_text("done with this campaign")
    page.bring_to_front()  # the clipboard is written only by a focused document
    # "Copied" shows for 2 s only: on a loaded machine a poll can miss it, so the page itself
    # records that the button said it.
    page.evaluate(WATCH_COPIED)
    page.get_by_role("button", name="Copy").click()
    page.wait_for_function("window.copiedShown === true", timeout=10_000)
    assert page.evaluate("navigator.clipboard.readText()") == code
    shot(page, screenshots, "4-done-with-code")

    page.get_by_role("link", name="My campaigns").first.click()
    card = page.locator(f"#campaign-{campaign.pk}")
    expect(card).to_contain_text("Weekend chat")
    expect(card.locator(".answered")).to_have_text("6")
    expect(card).to_contain_text(code)
    shot(page, screenshots, "5-my-campaigns")
    assert Rating.objects.filter(campaign=campaign, status=RatingStatus.DONE).count() == 6

    # The rater hands the code in; the researcher checks it (and a mistyped one) before paying.
    owner_page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    owner_page.get_by_role("link", name="Check the completion codes").click()
    owner_page.get_by_label("Participants and their codes").fill(
        f"weekend-rater\t{code.lower()}\nweekend-rater\t{code[::-1]}\n"
    )
    owner_page.get_by_role("button", name="Check the codes").click()
    expect(owner_page.get_by_role("heading", name="1 of 2 valid")).to_be_visible()
    expect(owner_page.locator("#code-checks tbody tr").first).to_contain_text("valid")
    expect(owner_page.locator("#code-checks tbody tr").last).to_contain_text("Wrong code")
    shot(owner_page, screenshots, "6-owner-checks-codes")


def test_my_campaigns_and_the_rate_page_on_a_phone(
    live_server, browser, make_campaign, make_rater, output_path
):
    """The rater's pages at a phone's width: the undo and the campaign cards fit."""
    campaign = make_campaign(name="Weekend chat")
    rater = make_rater(campaign)
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(page, live_server.url, rater.username)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/rate/")
    press(page, "4")
    expect(page.get_by_role("button", name="Undo my last answer")).to_be_visible()
    shot(page, Path(output_path), "phone-rate")
    page.goto(f"{live_server.url}/me/campaigns/")
    expect(page.get_by_role("link", name="Continue rating")).to_be_visible()
    shot(page, Path(output_path), "phone-my-campaigns")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
