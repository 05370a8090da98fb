"""A mapping is remembered per user and header: the next file with the same header goes in
unasked (page, API, command), read the same way (roles, separators, where the original is);
another user, or another header, is still asked."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from annotate.datasets.models import Reference
from annotate.judgments.bundles import bundle_parse
from annotate.judgments.columns import mapping_from_option
from annotate.judgments.models import ColumnMapping, JudgmentSet
from annotate.judgments.services.importing import judgments_import_files
from annotate.judgments.services.mappings import column_mapping_recall
from tests.annotate.test_judgment_mapping import _hidden, _selects
from tests.published_eval import published_eval

pytestmark = pytest.mark.django_db
PAGE = "/datasets/he/judgments/import/"
COLUMNS_PAGE = "/datasets/he/judgments/import/columns/"
API = "/api/v1/datasets/he/judgments/"
HEADER = b"Rater#\tCtx\tSys\tRel\n"


@pytest.fixture
def dataset(make_dataset):
    return make_dataset(slug="he", data=None)


def _file(rows: bytes, name: str = "j.tsv") -> dict:
    return {"judgments": SimpleUploadedFile(name, HEADER + rows), "split": "test"}


def test_the_page_asks_once_per_header_and_user(dataset, owner, staff, client_for):
    client = client_for(owner)
    first = client.post(PAGE, _file(b"r1\tc1\tmt\t4\nr2\tc1\tmt\t5\n")).content.decode()
    choice = {**_selects(first), "judgments-1": "judge", "judgments-2": "item"}
    done = client.post(COLUMNS_PAGE, {**choice, "token": _hidden(first, "token"), "split": "test"})
    assert done.status_code == 302 and ColumnMapping.objects.get().owner == owner
    second = client.post(PAGE, _file(b"r9\tc7\trnn\t2\n", "next.tsv"))
    latest = JudgmentSet.objects.latest("pk")
    assert second.status_code == 302 and second.url == f"/judgments/{latest.pk}/"
    assert latest.report["remembered"] == ["judgments"]
    assert latest.judgments.get().judge == "r9"
    assert "read as you mapped the same header before" in client.get(second.url).content.decode()
    # Staff may import into the dataset too: its own mappings, none yet, so it is asked.
    page = client_for(staff).post(PAGE, _file(b"r1\tc2\tmt\t4\n")).content.decode()
    assert 'id="columns-form"' in page and "no column is the item" in page


def test_the_original_s_place_and_separators_are_remembered_too(
    dataset, owner, client_for, make_dataset
):
    published = published_eval(systems=2, items=3)
    upload = SimpleUploadedFile("p.csv", published.data)
    body = {"judgments": upload, "original": "last", "separators": '{"references": "tab"}'}
    assert client_for(owner).post(API, body, format="multipart").status_code == 201
    kept = ColumnMapping.objects.get()
    assert kept.options == {"separators": {"references": "tab"}, "original": "last"}
    again = published_eval(systems=2, items=3, seed=5)
    elsewhere = make_dataset(slug="he2", data=None)  # remembered for the user, not the dataset
    imported = judgments_import_files(
        dataset=elsewhere,
        owner=owner,
        name="again",
        split="test",
        files={"judgments": ("p2.csv", again.data)},
    )
    assert imported.report["remembered"] == ["judgments"]
    refs = Reference.objects.filter(item__split__dataset=elsewhere, item__external_id="i1")
    assert [r.text for r in refs.order_by("position")] == again.references["i1"]
    explained = {s["role"]: s["explanation"] for s in imported.report["separators"]}
    assert explained["references"].endswith("as given")


def test_another_user_or_header_is_still_asked(dataset, owner, other, tmp_path):
    rows = b"r1\tc1\tmt\t4\nr2\tc1\tmt\t5\n"
    judgments_import_files(
        dataset=dataset,
        owner=owner,
        name="",
        split="test",
        files={"judgments": ("j.tsv", HEADER + rows)},
        columns=mapping_from_option(["judge=Rater#", "item=Ctx"]),
    )
    # The command reads as the dataset's owner: remembered.
    path = tmp_path / "j.tsv"
    path.write_bytes(HEADER + b"r3\tc2\tmt\t1\n")
    call_command("import_judgments", "he", str(path))
    assert JudgmentSet.objects.count() == 2
    for user, header in [(other, HEADER), (owner, b"Rater#\tCtx\tSys\tRel\tInf\n")]:
        bundle = bundle_parse(
            judgments=("j.tsv", header + b"r1\tc1\tmt\t4\t3\n"),
            recall=column_mapping_recall(owner=user),
        )
        assert bundle.unsure and not bundle.remembered


def test_the_preview_api_reads_as_the_import_would(dataset, owner, client_for):
    judgments_import_files(
        dataset=dataset,
        owner=owner,
        name="",
        split="test",
        files={"judgments": ("j.tsv", HEADER + b"r1\tc1\tmt\t4\n")},
        columns=mapping_from_option(["judge=Rater#", "item=Ctx"]),
    )
    answer = client_for(owner).post(
        "/api/v1/datasets/he/judgments/preview/", _file(b"r2\tc2\tmt\t3\n"), format="multipart"
    )
    judgments = answer.json()["files"]["judgments"]
    assert answer.json()["sure"] and judgments["remembered"]
    assert [c["role"] for c in judgments["columns"]] == ["judge", "item", "system", "criterion"]
