"""Participants make a team in the browser, invite by link, submit as the team to a hidden-test
leaderboard, see its pick, and withdraw it with a reason. Screenshots under test-results/."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from annotate.accounts.services import user_create
from tests.browser.test_import_flow import log_in
from tests.browser.test_rater_journey import shot
from tests.conftest import PASSWORD

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("celery_worker_process"),
]
TEST_OUTPUT = "the hidden answer is here\nanother hidden reference\n"


def test_a_team_is_made_joined_and_submits_together(
    live_server, browser, make_leaderboard, other, tmp_path, output_path
):
    shots, base = Path(output_path), live_server.url
    make_leaderboard(split="test", slug="hidden-test")
    user_create(username="mate", password=PASSWORD, role="researcher")

    founder = browser.new_context().new_page()
    log_in(founder, base, "other")
    founder.goto(f"{base}/leaderboards/teams/")
    founder.get_by_label("Name").fill("Night Owls")
    founder.get_by_role("button", name="Create team").click()
    founder.get_by_role("button", name="Make an invitation link").click()
    link = founder.locator("#invitation-link").input_value()
    assert link.startswith(f"{base}/leaderboards/teams/join/")
    shot(founder, shots, "1-team-with-link")

    mate = browser.new_context().new_page()
    log_in(mate, base, "mate")
    mate.goto(link)
    mate.get_by_role("button", name="Join Night Owls").click()
    expect(mate.locator("#members")).to_contain_text("other")
    expect(mate.locator("#members")).to_contain_text("mate")

    outputs = tmp_path / "outputs.txt"
    outputs.write_text(TEST_OUTPUT)
    submit(mate, base, outputs)
    founder.goto(f"{base}/leaderboards/hidden-test/")
    mine = founder.locator("#my-submissions")
    expect(mine).to_contain_text("Night Owls")
    expect(mine.locator("tbody tr").first.locator("td").nth(4)).to_have_text("yes")  # its pick
    expect(founder.locator("#leaderboard")).to_contain_text("night decoder")
    shot(founder, shots, "2-board-with-the-teams-pick")

    mine.get_by_role("link", name="night decoder").click()
    founder.get_by_label("Reason (optional)").fill("We found a bug in our decoder.")
    founder.get_by_role("button", name="Withdraw it").click()
    expect(founder.locator("#listing")).to_contain_text("We found a bug in our decoder.")
    shot(founder, shots, "3-withdrawn")
    founder.goto(f"{base}/leaderboards/hidden-test/")
    expect(founder.locator("#leaderboard")).to_have_count(0)
    expect(founder.locator("#unlisted")).to_contain_text("withdrawn by its team")


def submit(page: Page, base: str, outputs: Path) -> None:
    page.goto(f"{base}/leaderboards/hidden-test/submit/")
    page.wait_for_load_state("load")
    page.get_by_label("File").set_input_files(str(outputs))
    page.get_by_label("Method").fill("night decoder")
    page.get_by_label("Team").select_option("Night Owls")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#submission-status .status")).to_have_text(
        re.compile("succeeded", re.I), timeout=90_000
    )
