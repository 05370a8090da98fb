"""A participant uploads an output, watches it being scored by a real worker, sees the row."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_import_flow import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GOOD = "the cat sat on a mat\nwhat a great match\nsee you then\ni love cheese pizza\n"
SCORING_SECONDS = 60


def test_upload_watch_the_progress_and_see_the_row(
    live_server,
    page: Page,
    celery_worker_process,
    make_leaderboard,
    other,
    tmp_path,
):
    make_leaderboard(slug="chat-dev")
    script_errors: list = []
    page.on("pageerror", lambda error: script_errors.append(error))
    log_in(page, live_server.url, "other")
    page.goto(f"{live_server.url}/leaderboards/chat-dev/")
    expect(page.locator("#no-entries")).to_be_visible()
    page.get_by_role("link", name="Submit", exact=True).click()
    page.wait_for_load_state("load")

    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"first line\nsecond \xff line\n")
    page.get_by_label("File").set_input_files(str(bad))
    page.get_by_label("Method").fill("broken run")
    page.get_by_role("button", name="Submit").click()
    problems = page.locator("#upload-problems")
    expect(problems).to_contain_text("nothing was queued or charged")
    expect(problems).to_contain_text("Line 2: not valid UTF-8")
    expect(problems).to_contain_text("the file has 2 lines; the leaderboard has 4 items")

    good = tmp_path / "outputs.txt"
    good.write_text(GOOD)
    page.get_by_label("File").set_input_files(str(good))
    page.get_by_label("Method").fill("seq2seq with attention")
    page.get_by_role("button", name="Submit").click()
    status = page.locator("#submission-status")
    expect(status.locator("progress")).to_be_visible()
    expect(status.locator(".status")).to_have_text(
        re.compile("succeeded", re.IGNORECASE), timeout=SCORING_SECONDS * 1000
    )
    expect(status.locator("progress")).to_have_attribute("value", "100")
    expect(page.locator("#scores")).to_contain_text("dbleu")

    page.goto(f"{live_server.url}/leaderboards/chat-dev/")
    row = page.locator("#leaderboard tbody tr").filter(has_text="seq2seq with attention")
    expect(row).to_be_visible()
    expect(row.locator("td").first).to_have_text("1")
    expect(page.locator("[data-chart][data-rendered=true] svg").first).to_be_visible()
    expect(page.get_by_text("broken run")).to_have_count(0)
    page.get_by_role("button", name="Method").click()  # the table sorts by a column
    expect(page.locator("#leaderboard th").nth(2)).to_have_attribute("aria-sort", "ascending")

    # On a phone the table scrolls inside itself: every column stays, the page keeps its width
    # (the third column, the method, used to be hidden on every table).
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(row.locator("td").nth(2)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # Its caption stays in view, whole, while the table scrolls sideways.
    table = page.locator("#leaderboard")
    table.evaluate("table => { table.scrollLeft = table.scrollWidth; }")
    box = page.locator("#leaderboard caption").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert script_errors == []
