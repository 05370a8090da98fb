import pytest

from annotate.datasets.formats import FileProblems
from annotate.datasets.models import Item, Reference
from annotate.datasets.selectors import dataset_export_jsonl
from annotate.datasets.services.datasets import dataset_compute_stats, dataset_import_file
from tests.conftest import DATA

pytestmark = pytest.mark.django_db


def import_bytes(dataset, text: bytes, fmt="jsonl"):
    return dataset_import_file(dataset=dataset, lines=text.splitlines(keepends=True), fmt=fmt)


def test_import_keeps_order_and_provenance(make_dataset):
    dataset = make_dataset()
    items = list(Item.objects.filter(split__dataset=dataset).order_by("position"))
    assert [(i.external_id, i.split.name) for i in items] == [
        ("c1", "dev"),
        ("c2", "test"),
        ("c3", "dev"),
    ]
    mined = Reference.objects.get(origin="mined")
    assert mined.provenance == {"corpus": "demo", "row": 17, "bm25": 12.5}


def test_export_round_trips_exactly(make_dataset):
    dataset = make_dataset()
    assert (
        "".join(dataset_export_jsonl(dataset=dataset)).encode()
        == (DATA / "small.jsonl").read_bytes()
    )


def test_demo_fixture_round_trips_exactly(make_dataset):
    from annotate.datasets.services.demo import DEMO_FILE

    dataset = make_dataset(slug="demo", data=None)
    import_bytes(dataset, DEMO_FILE.read_bytes())
    assert "".join(dataset_export_jsonl(dataset=dataset)).encode() == DEMO_FILE.read_bytes()


def test_a_bad_file_writes_nothing(make_dataset):
    dataset = make_dataset()
    before = (Item.objects.count(), Reference.objects.count())
    with pytest.raises(FileProblems):
        import_bytes(dataset, (DATA / "bad.jsonl").read_bytes())
    assert (Item.objects.count(), Reference.objects.count()) == before


def test_ids_already_in_the_dataset_are_refused_by_line(make_dataset):
    dataset = make_dataset()
    text = (
        b'{"id": "new", "message": "m", "references": [{"text": "r"}]}\n'
        b'{"id": "c3", "message": "m", "references": [{"text": "r"}]}\n'
    )
    with pytest.raises(FileProblems) as info:
        import_bytes(dataset, text)
    assert [str(p) for p in info.value.problems] == [
        "line 2, id: 'c3' already exists in the dev split"
    ]
    assert not Item.objects.filter(external_id="new").exists()


def test_a_second_import_appends_after_the_first(make_dataset):
    dataset = make_dataset()
    import_bytes(dataset, (DATA / "small.tsv").read_bytes(), fmt="tsv")
    ids = list(
        Item.objects.filter(split__dataset=dataset)
        .order_by("position")
        .values_list("external_id", flat=True)
    )
    assert ids == ["c1", "c2", "c3", "t1", "t2"]


def test_stats_count_items_and_references(make_dataset):
    dataset = make_dataset()
    stats = dataset_compute_stats(dataset_id=dataset.pk)
    assert stats == {
        "items": 3,
        "references": 6,
        "items_per_split": {"dev": 2, "test": 1},
        "references_per_origin": {"original": 3, "mined": 1, "parroted": 1, "written": 1},
    }
    dataset.refresh_from_db()
    assert dataset.stats_updated_at is not None


def _lines(ids_and_splits) -> list[bytes]:
    row = '{{"id": "{}", "split": "{}", "message": "m", "references": [{{"text": "r"}}]}}\n'
    return [row.format(i, s).encode() for i, s in ids_and_splits]


def test_an_import_takes_as_many_queries_for_many_items_and_both_splits():
    # One read of the dataset's items serves every check and the positions; missing splits,
    # items and references are one insert each.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotate.accounts.models import Role
    from tests.conftest import dataset_of, user_of

    owner = user_of("owner", Role.RESEARCHER)
    counts = []
    for slug, rows in [
        ("one-split", [("a", "dev")]),
        ("two-splits", [(f"i{k}", "dev" if k % 2 else "test") for k in range(60)]),
    ]:
        dataset = dataset_of(owner, slug=slug, data=None)  # no split yet: both are made
        with CaptureQueriesContext(connection) as queries:
            dataset_import_file(dataset=dataset, lines=_lines(rows), fmt="jsonl")
        counts.append(len(queries))
    assert counts[0] == counts[1]
