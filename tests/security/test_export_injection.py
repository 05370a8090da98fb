"""CSV/TSV exports never hand a spreadsheet a formula: every cell that begins with =, +, -, @,
a tab or a carriage return is written with a leading quote (core.tabular), in every export, and
the round-trip imports read our exports back unchanged."""

import csv
import io

import pytest
from django.core.files.storage import default_storage

from annotate.datasets.models import Reference
from annotate.rating.services.campaigns import campaign_join, crowd_rater_get_or_create
from annotate.releases.models import Release
from annotate.releases.services.importing import release_import_archive
from tests.annotate.release_kit import archive_bytes, published, settle
from tests.runs_kit import execute, upload

pytestmark = pytest.mark.django_db

CROWD_ID = '=HYPERLINK("http://evil","click")'
RISKY = ("=", "+", "-", "@", "\t", "\r")


def _risky_cells(rows):
    return [cell for row in rows for cell in row if cell[:1] in RISKY and not _number(cell)]


def _number(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.fixture
def world(make_dataset, make_campaign, owner, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    dataset = make_dataset(visibility="public", data="formula.jsonl")
    campaign = make_campaign(dataset=dataset)
    crowd = crowd_rater_get_or_create(campaign=campaign, participant_id=CROWD_ID)
    campaign_join(campaign=campaign, rater=crowd, crowd_id=CROWD_ID)
    for k, reference in enumerate(Reference.objects.filter(item__split__dataset=dataset)):
        w = (0.5, -0.5)[k % 2]
        settle(campaign, reference, [crowd], weight=w, sd=0.0, ci_halfwidth=0.0, first_score=4)
    return dataset, campaign


def test_the_ratings_csv_quotes_a_crowd_id_and_reference_texts(world, client_for, owner):
    _dataset, campaign = world
    response = client_for(owner).get(f"/campaigns/{campaign.pk}/ratings.csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert _risky_cells(rows) == []
    cells = {cell for row in rows for cell in row}
    assert "'" + CROWD_ID in cells and "'@SUM(1)" in cells and "''=already quoted" in cells


def test_release_tsv_files_quote_risky_cells_and_import_back_unchanged(world, owner, other):
    dataset, campaign = world
    release = published(dataset, campaign, owner, include_ratings=True)
    for name in ("references.tsv", "ratings.tsv"):
        text = default_storage.open(release.storage_prefix + name).read().decode()
        rows = [line.split("\t") for line in text.splitlines()]
        assert _risky_cells(rows) == [], name
    references = default_storage.open(release.storage_prefix + "references.tsv").read().decode()
    assert "\t'@SUM(1)\t" in references and "\t'+1+1\t'-2+3\t" in references
    copy = release_import_archive(source=archive_bytes(release, owner), owner=other, slug="copy")
    assert copy.manifest_checksum == release.manifest_checksum
    texts = set(Release.objects.get(pk=copy.pk).references.values_list("text", flat=True))
    assert {'=HYPERLINK("http://evil","click")', "@SUM(1)", "'=already quoted"} <= texts


def test_the_leaderboard_export_quotes_a_method_and_a_team(
    make_leaderboard, client_for, other, owner, settings, tmp_path
):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    board = make_leaderboard()
    hyps = ["the cat sat on a mat", "what a great match", "see you then", "i love cheese pizza"]
    submission = upload(board, other, hyps, method="=cmd|' /C calc'!A0", description="@x")
    assert execute(submission.run_id).state == "succeeded"
    for url in (
        f"/leaderboards/{board.slug}/export.csv",
        f"/api/v1/leaderboards/{board.slug}/export.csv",
    ):
        rows = list(csv.reader(io.StringIO(client_for(owner).get(url).content.decode())))
        assert _risky_cells(rows) == []
        assert "'=cmd|' /C calc'!A0" in {cell for row in rows for cell in row}


def test_a_tsv_import_reads_a_guarded_cell_back(import_into_empty_dataset):
    content = b"id\tmessage\treference\na\t'-2+3\t'=SUM(1)\nb\thi\t''=kept\n"
    response = import_into_empty_dataset("d.tsv", content)
    assert response.status_code == 201
    texts = set(Reference.objects.values_list("text", flat=True))
    assert texts == {"=SUM(1)", "'=kept"}
