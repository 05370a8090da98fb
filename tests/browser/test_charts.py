"""Charts drawn by the vendored vega-embed under the page's Content-Security-Policy: an SVG with
values on its axes, a tooltip, a menu that saves it as PNG or SVG, nothing fetched from another
host; without JavaScript, the table of its values."""

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from annotate.rating.services.assignment import rating_next
from annotate.rating.services.ratings import rating_submit
from annotate.rating.services.weights import weights_recompute_campaign
from tests.browser.test_csp import _watch
from tests.browser.test_import_flow import log_in
from tests.runs_kit import execute, upload
from tests.scoring.conftest import GOOD, PERFECT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _watch_console(page: Page) -> list[str]:
    """Errors and warnings in the console (Vega's own warnings about a spec go there too)."""
    said: list[str] = []
    page.on(
        "console",
        lambda m: (
            said.append(f"{m.text} {m.location.get('url')}")
            if m.type in ("warning", "error")
            and not m.location.get("url", "").endswith("/favicon.ico")  # the site has none
            else None
        ),
    )
    page.on("pageerror", lambda error: said.append(str(error)))
    return said


def _check_chart(page: Page, figure: Locator, *, shows: list[str]) -> None:
    """The figure's chart is drawn as an SVG showing `shows`, with its table closed, and its
    menu saves it as SVG (a file with the same texts) or PNG."""
    box = figure.locator("[data-chart]")
    expect(box).to_have_attribute("data-rendered", "true", timeout=20_000)
    drawing = box.locator(".chart-view svg.marks")
    expect(drawing).to_be_visible()
    for text in shows:
        expect(drawing.locator("text", has_text=text).first).to_be_attached()
    expect(figure.locator("details.chart-data")).not_to_have_attribute("open", "")

    box.locator("summary").click()  # vega-embed's actions menu
    expect(box.get_by_role("link", name="Save as PNG")).to_be_visible()
    expect(box.get_by_role("link", name="Open in Vega Editor")).to_have_count(0)
    with page.expect_download() as download:
        box.get_by_role("link", name="Save as SVG").click()
    assert download.value.suggested_filename.endswith(".svg")
    saved = Path(download.value.path()).read_text(encoding="utf-8")
    assert saved.startswith("<svg") and all(text in saved for text in shows)
    box.locator("summary").click()  # closes the menu


def test_the_dashboard_draws_answers_per_hour_and_weights(
    live_server, page: Page, make_campaign, make_rater, owner
):
    campaign = make_campaign(name="Round one", ratings_per_unit=2)
    for rater, score in ((make_rater(campaign), 5), (make_rater(campaign), 4)):
        while (lease := rating_next(campaign=campaign, rater=rater)) is not None:
            rating_submit(rating_id=lease.pk, rater=rater, score=score if lease.pk % 2 else 2)
    weights_recompute_campaign(campaign_id=campaign.pk)
    violations, outside = _watch(page, live_server)
    errors = _watch_console(page)
    log_in(page, live_server.url, "owner")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")

    hourly = page.locator("figure", has_text="Answers per hour over")
    _check_chart(page, hourly, shows=["Answers per hour", "Hour (UTC)", "Answers", ":00"])
    weights = page.locator("figure", has_text="Distribution of reference weights")
    _check_chart(page, weights, shows=["Weights of references", "References", "0.0"])
    hourly.locator("path[aria-roledescription='bar']").last.hover()  # all 12 in the last hour
    expect(page.locator("#vg-tooltip-element")).to_contain_text("Answers12")
    assert violations == [] and outside == [] and errors == []


def test_a_leaderboard_draws_its_intervals_and_works_without_javascript(
    live_server, page: Page, browser: Browser, make_leaderboard, owner, other
):
    board = make_leaderboard()
    for user, hyps, fields in (
        (owner, GOOD, {"method": "copy baseline", "is_baseline": True}),
        (other, PERFECT, {"method": "oracle"}),
    ):
        execute(upload(board, user, hyps, **fields).run_id)
    violations, outside = _watch(page, live_server)
    errors = _watch_console(page)
    page.goto(f"{live_server.url}/leaderboards/board/")
    figure = page.locator("figure", has_text="bootstrap intervals")
    _check_chart(page, figure, shows=["dbleu with 95% intervals", "oracle", "baseline"])
    assert violations == [] and outside == [] and errors == []

    plain = browser.new_page(java_script_enabled=False)
    plain.goto(f"{live_server.url}/leaderboards/board/")
    values = plain.locator("figure", has_text="bootstrap intervals").locator("details.chart-data")
    expect(values).to_have_attribute("open", "")
    expect(values.locator("tbody tr")).to_have_count(2)
    expect(values.locator("tbody tr").first).to_contain_text("oracle")
    plain.close()
