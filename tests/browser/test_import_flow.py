"""A researcher logs in, creates a dataset, imports a file through the form and sees it."""

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import DATA, PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("link", name=username)).to_be_visible()


def test_import_a_dataset_through_the_form(live_server, page: Page, owner):
    log_in(page, live_server.url, "owner")
    page.get_by_role("link", name="New dataset").click()
    page.get_by_label("Name").fill("Match chat")
    page.get_by_label("Slug").fill("match-chat")
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("heading", name="Import into Match chat")).to_be_visible()
    page.wait_for_load_state("load")  # the page's script must be running before we pick a file

    page.get_by_label("File").set_input_files(str(DATA / "bad.jsonl"))
    expect(page.locator("#file-summary")).to_contain_text("bad.jsonl")
    page.get_by_role("button", name="Import").click()
    problems = page.locator("#import-problems")
    expect(problems).to_contain_text("nothing was written")
    expect(problems).to_contain_text("Line 3: not valid JSON")

    page.get_by_label("File").set_input_files(str(DATA / "small.jsonl"))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Imported 3 items and 6 references.")).to_be_visible()
    expect(page.get_by_role("heading", name="Match chat")).to_be_visible()
    expect(page.get_by_text("yes, what a finish!").first).to_be_visible()
    page.get_by_role("button", name="Show all references").click()
    expect(page.get_by_text("that last goal was unbelievable")).to_be_visible()

    page.goto(f"{live_server.url}/")
    expect(page.get_by_role("link", name="Match chat")).to_be_visible()


def test_anonymous_visitors_see_public_datasets_but_no_import(
    live_server, page: Page, make_dataset
):
    make_dataset(slug="open-chat", visibility="public")
    page.goto(f"{live_server.url}/datasets/open-chat/")
    expect(page.get_by_text("what a finish").first).to_be_visible()
    expect(page.get_by_role("link", name="Import items")).to_have_count(0)
