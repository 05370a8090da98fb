"""A leaderboard on a release whose weights come from ratings, in a browser: the released and
the corrected score, both intervals in the table and the chart, P(ahead of next), what the
rater-aware interval means, and the rank grid drawn as a chart and as numbers."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_charts import GOOD, PERFECT, _check_chart, _watch_console
from tests.browser.test_csp import _watch
from tests.conftest import WELL_RATED_RELEASE_ITEMS
from tests.runs_kit import execute_scoring, upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "test-results"


def test_the_board_shows_rater_intervals_and_rank_stability(
    live_server, page: Page, make_leaderboard, make_release, owner, other
):
    board = make_leaderboard(release=make_release(items=WELL_RATED_RELEASE_ITEMS))
    for user, hyps, fields in (
        (owner, GOOD, {"method": "copy baseline", "is_baseline": True}),
        (other, PERFECT, {"method": "oracle"}),
    ):
        execute_scoring(upload(board, user, hyps, **fields))
    violations, outside = _watch(page, live_server)
    errors = _watch_console(page)
    page.goto(f"{live_server.url}/leaderboards/{board.slug}/")

    table = page.locator("#leaderboard")
    expect(table.locator("thead")).to_contain_text("(items + raters)")
    expect(table.locator("td.rater-ci").first).to_have_text(re.compile(r"^\d+\.\d\d – \d+\.\d\d$"))
    expect(table.locator("td.order-holds").first).to_have_text(re.compile(r"^[01]\.\d\d$"))
    expect(table.locator("thead")).to_contain_text("(released weights)")
    expect(table.locator("td.corrected").first).to_have_text(re.compile(r"^\d+\.\d\d$"))
    expect(page.locator("#rater-note")).to_contain_text("infinitely many raters")
    intervals = page.locator("figure", has_text="interval over items and raters")
    _check_chart(page, intervals, shows=["dbleu with 95% intervals", "oracle"])
    ranks = page.locator("#rank-stability figure")
    _check_chart(page, ranks, shows=["Rank over the bootstrap (items and raters)", "Rank"])
    expect(page.locator("#rank-table tbody tr")).to_have_count(2)
    expect(page.locator("#rank-table thead")).to_contain_text("P(rank 2)")
    SHOTS.mkdir(exist_ok=True)
    page.locator("#rank-stability").screenshot(path=str(SHOTS / "rank-stability.png"))
    page.locator("#leaderboard").screenshot(path=str(SHOTS / "leaderboard-raters.png"))
    page.locator("#rater-note").screenshot(path=str(SHOTS / "rater-note.png"))
    assert violations == [] and outside == [] and errors == []
