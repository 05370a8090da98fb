"""A researcher uploads a published evaluation's single CSV on the import page: once as it is
(the original reference last, said on the form), once with a system column nobody can guess,
which the mapping page shows split into values and lets them name."""

import pytest
from playwright.sync_api import Page, expect

from annotate.datasets.models import Item, Reference
from annotate.judgments.models import Judgment, JudgmentSet
from tests.browser.test_import_flow import log_in
from tests.published_eval import published_eval

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_single_published_csv_through_the_import_and_mapping_pages(
    live_server, page: Page, owner, make_dataset, tmp_path
):
    make_dataset(slug="pub", data=None)
    published = published_eval(systems=5, items=20)
    path = tmp_path / "published.csv"
    path.write_bytes(published.data)
    log_in(page, live_server.url, "owner")
    page.goto(f"{live_server.url}/datasets/pub/judgments/import/")
    page.get_by_label("Judgments").set_input_files(str(path))
    page.get_by_label("Original reference").select_option("last")
    page.get_by_role("button", name="Import judgments").click()
    expect(page.locator("#judgment-summary")).to_contain_text("100 judgments (100 rows) of 5")
    expect(page.locator("#judgment-aggregated")).to_contain_text("already aggregated")
    expect(page.locator("#judgment-separators")).to_contain_text("split at a tab")
    item = Item.objects.get(split__dataset__slug="pub", external_id="i7")
    assert [r.text for r in Reference.objects.filter(item=item)] == published.references["i7"]
    assert (item.context, item.message) == (published.turns["i7"][:-1], published.turns["i7"][-1])

    # Another evaluation of the same shape whose system column is called "bot".
    make_dataset(slug="pub2", data=None)
    renamed = tmp_path / "renamed.csv"
    renamed.write_bytes(published.data.replace(b"system,", b"bot,", 1))
    page.goto(f"{live_server.url}/datasets/pub2/judgments/import/")
    page.get_by_label("Judgments").set_input_files(str(renamed))
    page.get_by_role("button", name="Import judgments").click()
    expect(page.locator("#columns-unsure")).to_contain_text("no column is the system")
    first_row = page.locator("#columns-judgments tbody tr").first
    expect(first_row.locator("ol.cell-values").first.locator("li")).to_have_count(
        len(published.references["i1"])
    )
    expect(page.locator("#separators-judgments")).to_contain_text("split at '||||'")
    page.get_by_label("bot").select_option("system")
    page.get_by_label("Original reference").select_option("last")
    page.get_by_role("button", name="Import with these columns").click()
    expect(page.locator("#judgment-aggregated")).to_be_visible()
    imported = JudgmentSet.objects.get(dataset__slug="pub2")
    assert Judgment.objects.filter(judgment_set=imported).count() == 100
    item = Item.objects.get(split__dataset__slug="pub2", external_id="i1")
    assert [r.text for r in Reference.objects.filter(item=item)] == published.references["i1"]
