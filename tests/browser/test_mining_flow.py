"""The owner starts a mining run, watches its progress bar reach 100%, sees the candidates."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_import_flow import log_in
from tests.mining_fixtures import index_corpus

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("celery_worker_process"),
]


def test_mine_candidates_and_review_them(live_server, page: Page, owner, make_dataset):
    make_dataset(slug="seeds", data="mining_seeds.jsonl")
    index_corpus(owner, name="Match chat corpus")
    log_in(page, live_server.url, "owner")
    page.goto(f"{live_server.url}/datasets/seeds/")
    page.get_by_role("link", name="Mine candidates").click()
    expect(page.get_by_label("Corpus")).to_contain_text("Match chat corpus")
    page.get_by_label("Split").select_option("dev")
    page.get_by_role("button", name="Start mining").click()

    expect(page.get_by_text("Mining started.")).to_be_visible()
    # The bar polls the job API and the page reloads when the run ends.
    expect(page.locator(".job-percent")).to_have_text("100%", timeout=60_000)
    # The server and the poller both write the run's "Succeeded".
    expect(page.locator(".job-status")).to_have_text(re.compile("^succeeded$", re.IGNORECASE))
    expect(page.locator("#mining-result")).to_contain_text("3 mined and 2 parroted")

    page.get_by_role("link", name="Review mined candidates").click()
    table = page.locator("#candidates")
    expect(table).to_contain_text("try the pizza place next to the station")
    expect(table).to_contain_text("Match chat corpus, line 7")
    page.get_by_label("Remove “try the pizza place next to the station”").check()
    page.get_by_role("button", name="Remove selected").click()
    expect(page.get_by_text("Removed 1 candidates.")).to_be_visible()
    expect(table).not_to_contain_text("try the pizza place next to the station")

    page.goto(f"{live_server.url}/datasets/seeds/")
    expect(page.locator(".job-percent")).to_have_text("100%")
    page.get_by_role("button", name="Show all references").click()
    expect(page.get_by_text("best finish of the season, keeper had no chance")).to_be_visible()
