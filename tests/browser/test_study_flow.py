"""An owner starts a correlation study on the page, watches a real worker run it, reads it."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_import_flow import log_in
from tests.human_eval_files import CRITERIA, HUMAN, write_human_eval
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
    charts = page.locator("#study-plots [data-chart]")
    expect(charts).to_have_count(3)  # 3 sweeps, a line per metric
    expect(charts.locator("svg.marks")).to_have_count(3)
    expect(page.get_by_role("link", name="CSV")).to_be_visible()
    # The finished page stays put (it used to reload itself forever once the job had ended).
    loads: list = []
    page.on("load", lambda _: loads.append(1))
    page.wait_for_timeout(2500)
    assert loads == []
    assert script_errors == []


def test_raw_files_to_a_study_in_the_browser(
    live_server, page: Page, celery_worker_process, owner, tmp_path
):
    """A researcher's own human evaluation, as files from the field: the judge's column has a
    name nobody could guess, so the import asks; then a study of two criteria without the
    human responses, read at the system level and the pair level."""
    files = write_human_eval(tmp_path, seed=3, systems=4, contexts=80)
    judgments = files.paths["judgments"]
    judgments.write_text(judgments.read_text().replace("WorkerId", "Person", 1))
    shots = tmp_path / "screens"
    log_in(page, live_server.url, "owner")
    page.get_by_role("link", name="New dataset").click()
    page.get_by_label("Name").fill("Pilot")
    page.get_by_label("Slug").fill("pilot")
    page.get_by_role("button", name="Create").click()
    page.goto(f"{live_server.url}/datasets/pilot/judgments/import/")
    for key in ("judgments", "systems", "contexts", "references"):
        page.locator(f"#id_{key}").set_input_files(str(files.paths[key]))
    page.get_by_role("button", name="Import judgments").click()

    expect(page.locator("#columns-unsure")).to_contain_text("judge")
    page.screenshot(path=shots / "columns.png", full_page=True)
    page.locator("#columns-judgments").get_by_label("Person").select_option("judge")
    page.get_by_role("button", name="Import with these columns").click()
    expect(page.get_by_text("have no references").first).to_be_visible()
    page.screenshot(path=shots / "report.png", full_page=True)

    page.goto(f"{live_server.url}/studies/")
    page.get_by_label("Name").fill("Pilot study")
    page.get_by_label("Judgments").select_option(index=1)
    page.get_by_label("Criteria:", exact=True).select_option(list(CRITERIA))
    page.get_by_label("Exclude systems").select_option(HUMAN)
    page.get_by_label("Unit size M").fill("5")
    page.get_by_label("Assignments").fill("20")
    page.get_by_role("button", name="Start study").click()

    systems = page.locator("#systems-1")
    expect(systems).to_be_visible(timeout=STUDY_SECONDS * 1000)
    expect(page.locator("#study-inputs")).to_contain_text("every reference counts with weight +1")
    expect(systems.locator(".system-table")).to_contain_text(files.systems[0])
    expect(systems.locator(".system-table")).not_to_contain_text(HUMAN)
    expect(systems.locator(".correlation-table")).to_contain_text("Pearson")
    expect(systems.locator(".plots svg").first).to_be_visible()
    for criterion in CRITERIA:  # side by side, in the order chosen
        expect(page.get_by_role("heading", name=f"Systems — {criterion}")).to_be_visible()
    expect(page.locator("#study-table")).to_contain_text("ΔBLEU")
    page.screenshot(path=shots / "study.png", full_page=True)
