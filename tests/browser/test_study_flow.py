"""An owner starts a correlation study on the page, watches a real worker run it, reads it."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_import_flow import log_in
from tests.scoring.study_kit import study_inputs, study_release_items

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

STUDY_SECONDS = 90


def test_start_a_study_watch_the_progress_and_see_table_and_plots(
    live_server, page: Page, celery_worker_process, owner, make_release
):
    release = make_release(items=study_release_items(), public_splits=("test",))
    study_inputs(owner, release)
    script_errors: list = []
    page.on("pageerror", lambda error: script_errors.append(error))
    log_in(page, live_server.url, "owner")
    page.goto(f"{live_server.url}/studies/")
    page.get_by_label("Name").fill("Table 2 on chat")
    page.get_by_label("Release").select_option(index=1)
    page.get_by_label("Split").select_option("test")
    page.get_by_label("Judgments").select_option(index=1)
    page.get_by_label("Unit size M").fill("3")
    page.get_by_label("Assignments").fill("10")
    page.get_by_role("button", name="Start study").click()

    expect(page.get_by_role("heading", name="Table 2 on chat")).to_be_visible()
    expect(page.locator("progress.job-bar")).to_be_visible()
    # The page reloads itself when the job ends and then shows the result.
    table = page.locator("#study-table")
    expect(table).to_be_visible(timeout=STUDY_SECONDS * 1000)
    expect(page.locator(".job-status")).to_have_text(re.compile("succeeded", re.IGNORECASE))
    expect(page.locator("progress.job-bar")).to_have_attribute("value", "100")
    expect(table).to_contain_text("ΔBLEU")
    expect(table.locator("tbody tr").first).to_be_visible()
    expect(page.locator("#study-plots svg").first).to_be_visible()
    expect(page.locator("#study-plots svg")).to_have_count(9)  # 3 sweeps × 3 metrics
    expect(page.get_by_role("link", name="CSV")).to_be_visible()
    # The finished page stays put (it used to reload itself forever once the job had ended).
    loads: list = []
    page.on("load", lambda _: loads.append(1))
    page.wait_for_timeout(2500)
    assert loads == []
    assert script_errors == []
