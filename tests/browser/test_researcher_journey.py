"""A researcher's whole journey in a real browser, with a real worker: import a dataset, mine
candidates, run a campaign with two raters to completion, publish the release with the typed-name
confirmation, open a leaderboard, mark a baseline, hide a bad submission (its team reads why) and
compare two entries (the same significance answer as the board's rank groups).

The researcher's steps go through pages; the two raters' answers and the participants' uploads go
through the services, to save time. Screenshots of the key pages go to the test's output
directory (test-results/…, git-ignored)."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from annotate.rating.models import Campaign
from annotate.rating.services.assignment import rating_next
from annotate.rating.services.campaigns import campaign_join
from annotate.rating.services.ratings import rating_submit
from annotate.rating.services.weights import weights_recompute_campaign
from scoring.leaderboards.models import Leaderboard, Submission
from tests.browser.test_import_flow import log_in
from tests.browser.test_rater_journey import shot
from tests.conftest import DATA
from tests.mining_fixtures import index_corpus
from tests.runs_kit import upload
from tests.workers import wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("celery_worker_process"),
]
WORKER_SECONDS = 90


def rate_everything(campaign: Campaign, raters, scores) -> int:
    """Each rater answers until the campaign has nothing left for them (top-ups included)."""
    answered = 0
    for rater, score in zip(raters, scores, strict=True):
        while (rating := rating_next(campaign=campaign, rater=rater)) is not None:
            rating_submit(rating_id=rating.pk, rater=rater, score=score)
            answered += 1
    return answered


def scored(board, user, lines, **fields) -> Submission:
    """A participant's upload, scored by the worker."""
    submission = upload(board, user, lines, **fields)
    return wait_for(
        lambda: Submission.objects.filter(pk=submission.pk, status="finished").first(),
        timeout=WORKER_SECONDS,
        what=f"the worker to score {submission.method}",
    )


def import_dataset(page: Page, base: str) -> None:
    log_in(page, base, "owner")
    page.get_by_role("link", name="New dataset").click()
    page.get_by_label("Name").fill("Match chat")
    page.get_by_label("Slug").fill("match-chat")
    page.get_by_role("button", name="Create").click()
    page.wait_for_load_state("load")
    page.get_by_label("File").set_input_files(str(DATA / "mining_seeds.jsonl"))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Imported 3 items and 3 references.")).to_be_visible()


def mine(page: Page, base: str, shots: Path) -> None:
    page.goto(f"{base}/datasets/match-chat/")
    page.get_by_role("link", name="Mine candidates").click()
    page.get_by_label("Split").select_option("dev")
    page.get_by_role("button", name="Start mining").click()
    expect(page.locator(".job-percent")).to_have_text("100%", timeout=WORKER_SECONDS * 1000)
    expect(page.locator("#mining-result")).to_contain_text("3 mined")
    shot(page, shots, "01-mined")


def run_campaign(page: Page, base: str, shots: Path, raters) -> Campaign:
    page.goto(f"{base}/datasets/match-chat/")
    page.get_by_role("link", name="Start a rating campaign").click()
    page.locator("#id_name").fill("First round")
    page.locator("#id_ratings_per_unit").fill("2")
    page.locator("#id_control_rate").fill("0")
    page.locator("#id_qc_min_seconds").fill("0")
    page.get_by_role("button", name=re.compile("^(Create|Start)")).click()
    expect(page.locator("#campaign-status")).to_have_text("Open")
    campaign = Campaign.objects.get(name="First round")
    for rater in raters:
        campaign_join(campaign=campaign, rater=rater)
    # The two raters disagree a little (5 and 4); top-ups are capped so that two can finish.
    assert rate_everything(campaign, raters, scores=(5, 4)) >= 2 * 6
    weights_recompute_campaign(campaign_id=campaign.pk, full=True)
    page.reload()
    expect(page.locator("#campaign-status")).to_have_text("Complete")
    shot(page, shots, "02-campaign-complete")
    page.get_by_role("button", name="Close the campaign").click()
    expect(page.locator("#campaign-status")).to_have_text("Closed")
    return campaign


def publish(page: Page, base: str, shots: Path, campaign: Campaign) -> None:
    page.goto(f"{base}/datasets/match-chat/")
    page.get_by_role("link", name="Freeze a release").click()
    page.get_by_label("Campaign").select_option(str(campaign.pk))
    page.get_by_role("button", name="Freeze a draft").click()
    page.get_by_role("link", name="Publish…").click()
    expected = page.locator("label[for=confirm-input] code").inner_text()
    page.locator("#confirm-input").fill("not the name")
    page.get_by_role("button", name=re.compile("Publish")).click()
    expect(page.locator("#confirm-error")).to_be_visible()  # a wrong name publishes nothing
    page.locator("#confirm-input").fill(expected)
    shot(page, shots, "03-publish-confirmation")
    page.get_by_role("button", name=re.compile("Publish")).click()
    expect(page.get_by_text(re.compile("published", re.IGNORECASE)).first).to_be_visible()


def open_leaderboard(page: Page, base: str, shots: Path) -> Leaderboard:
    # The release page reloads itself once its archive is built; a click before that reload
    # can be lost to it, so wait for the archive (shown only after the reload).
    archive = page.get_by_role("link", name=re.compile("Download all"))
    expect(archive).to_be_visible(timeout=90_000)
    page.wait_for_load_state("load")
    page.get_by_role("link", name="Open a leaderboard").click()
    page.wait_for_url(re.compile(r"/leaderboards/new/"))
    expect(page.get_by_text("its address is /leaderboards/your-slug/")).to_be_visible()
    page.get_by_label("Split").select_option("dev")
    page.get_by_label("Name").fill("Match chat dev")
    page.get_by_label("Slug").fill("match-chat-dev")
    page.get_by_role("button", name="Open").click()
    expect(page.get_by_role("heading", name="Match chat dev")).to_be_visible()
    board = Leaderboard.objects.get(slug="match-chat-dev")
    # The owner narrows the upload limit in the board's settings.
    page.get_by_role("link", name="Settings").click()
    page.get_by_label("Upload size limit (MB)").fill("1")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#board-limits")).to_contain_text("Uploads up to 1.0")
    return board


def owner_baseline(page: Page, base: str, tmp_path: Path, board: Leaderboard) -> None:
    """The owner submits the candidates' copy of the seeds' references as a baseline."""
    outputs = tmp_path / "copy.txt"
    outputs.write_text(
        "the keeper had no chance on that goal\nthe pizza place by the station is great\n"
    )
    page.goto(f"{base}/leaderboards/{board.slug}/submit/")
    page.wait_for_load_state("load")
    page.get_by_label("File").set_input_files(str(outputs))
    page.get_by_label("Method").fill("copy the seed reference")
    page.get_by_role("button", name="Submit").click()
    status = page.locator("#submission-status .status")
    expect(status).to_have_text(re.compile("succeeded", re.I), timeout=WORKER_SECONDS * 1000)
    page.reload()
    page.get_by_role("button", name="Mark as a baseline").click()
    expect(page.locator(".baseline-badge").first).to_be_visible()


def test_a_researcher_from_raw_file_to_a_kept_leaderboard(
    live_server, browser, owner, other, make_rater, tmp_path, output_path
):
    from annotate.accounts.services import user_create
    from tests.conftest import PASSWORD

    shots, base = Path(output_path), live_server.url
    index_corpus(owner, name="Match chat corpus")
    raters = [make_rater(), make_rater()]
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    errors: list = []
    page.on("pageerror", lambda error: errors.append(error))

    import_dataset(page, base)
    mine(page, base, shots)
    campaign = run_campaign(page, base, shots, raters)
    publish(page, base, shots, campaign)
    board = open_leaderboard(page, base, shots)
    wait_for(
        lambda: Leaderboard.objects.filter(pk=board.pk).exists(),
        timeout=WORKER_SECONDS,
        what="the board",
    )

    owner_baseline(page, base, tmp_path, board)
    good = scored(
        board,
        other,
        ["the keeper had no chance on that goal", "the pizza place near the station is great"],
        method="retrieval",
    )
    spammer = user_create(username="spammer", password=PASSWORD, role="researcher")
    junk = scored(board, spammer, ["buy now " * 30, "cheap pills " * 30], method="junk dump")
    page.goto(f"{base}/leaderboards/{board.slug}/")
    table = page.locator("#leaderboard")
    expect(table).to_contain_text("junk dump")
    shot(page, shots, "04-board-before")

    # The owner hides the junk with a reason; the board ranks the others only.
    table.get_by_role("link", name="junk dump").click()
    page.get_by_label("Reason shown to the team").fill("Spam, not a system output.")
    page.get_by_role("button", name="Hide it").click()
    expect(page.locator("#listing")).to_contain_text("Spam, not a system output.")
    page.goto(f"{base}/leaderboards/{board.slug}/")
    expect(page.locator("#leaderboard")).not_to_contain_text("junk dump")
    expect(page.locator("#unlisted")).to_contain_text("Spam, not a system output.")
    expect(page.locator("#leaderboard tr.baseline")).to_contain_text("copy the seed reference")
    expect(page.locator("#rank-method")).to_contain_text("Holm–Bonferroni over the 1 pair of")
    shot(page, shots, "05-board-after-hiding")

    # The spammer's team reads why.
    team_page = browser.new_context().new_page()
    log_in(team_page, base, "spammer")
    team_page.goto(f"{base}/leaderboards/submissions/{junk.pk}/")
    expect(team_page.locator("#listing-reason")).to_have_text("Spam, not a system output.")
    shot(team_page, shots, "06-team-reads-the-reason")

    # Compare the two entries: the same answer as the board's groups, test and correction named.
    page.locator("#leaderboard tr", has_text="retrieval").get_by_role(
        "link", name="compare"
    ).click()
    answer = page.locator("#significance-answer")
    expect(answer).to_be_visible()
    expect(page.locator("#answer-method")).to_contain_text("paired bootstrap resampling")
    expect(page.locator("#answer-method")).to_contain_text("Holm–Bonferroni over the 1 pair of")
    groups = [
        int(g) for g in re.findall(r"group (\d+)", page.locator("#answer-groups").inner_text())
    ]
    board_groups = {
        row.get_attribute("data-submission"): row.locator("td").nth(1).inner_text()
        for row in board_rows(page, base, board)
    }
    assert groups == [int(board_groups[str(good.pk)]), int(board_groups[str(baseline_pk(board))])]
    shot(page, shots, "07-compare")
    assert errors == []


def board_rows(page: Page, base: str, board: Leaderboard):
    """The board's rows as another tab shows them (the compare page stays open)."""
    other_tab = page.context.new_page()
    other_tab.goto(f"{base}/leaderboards/{board.slug}/")
    return other_tab.locator("#leaderboard tbody tr").all()


def baseline_pk(board: Leaderboard) -> int:
    return Submission.objects.get(leaderboard=board, is_baseline=True).pk
