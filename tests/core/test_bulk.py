"""update_by_pk writes each row its own values, whatever their types, in one query a batch;
large bulk writes refresh PostgreSQL's planner statistics when they commit."""

from datetime import UTC, datetime

import pytest
from django.db import connection

from annotate.datasets.formats import ItemRecord, ReferenceRecord
from annotate.datasets.models import Dataset, Item, Reference
from annotate.datasets.services.datasets import dataset_import
from annotate.releases.models import ReleaseItem, ReleaseReference
from annotate.releases.services.freeze import release_freeze
from core.bulk import ANALYZE_MIN_ROWS, analyze_after_commit, update_by_pk

pytestmark = pytest.mark.django_db


def test_each_row_gets_its_own_values_dates_nulls_and_json_included(
    owner, django_assert_num_queries
):
    datasets = [Dataset.objects.create(owner=owner, name=f"D{k}", slug=f"d{k}") for k in range(5)]
    when = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    for k, dataset in enumerate(datasets):
        dataset.description = f"it's number {k}"
        dataset.stats = {"k": k, "name": "ü"}
        dataset.stats_updated_at = when if k % 2 else None
    with django_assert_num_queries(2):
        assert (
            update_by_pk(
                Dataset, datasets[:4], ["description", "stats", "stats_updated_at"], batch=2
            )
            == 2
        )
    rows = {d.slug: d for d in Dataset.objects.all()}
    for k in range(4):
        assert rows[f"d{k}"].description == f"it's number {k}"
        assert rows[f"d{k}"].stats == {"k": k, "name": "ü"}
        assert rows[f"d{k}"].stats_updated_at == (when if k % 2 else None)
    assert rows["d4"].description == "" and rows["d4"].stats == {}


def test_nothing_to_write_is_no_query(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert update_by_pk(Dataset, [], ["description"]) == 0


def _planner_rows(model) -> float:
    """What PostgreSQL's planner believes the table holds (pg_class.reltuples; -1: never
    analyzed). ANALYZE sets it at once, in the transaction that runs it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [model._meta.db_table]
        )
        return float(cursor.fetchone()[0])


postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="planner statistics are PostgreSQL's (CI runs it)"
)


@postgresql_only
def test_a_large_import_refreshes_the_planners_statistics_when_it_commits(
    owner, django_capture_on_commit_callbacks
):
    dataset = Dataset.objects.create(owner=owner, name="Big", slug="big")
    records = [
        ItemRecord(
            k + 1, f"i{k}", "dev", ["hello"], "", [ReferenceRecord("a"), ReferenceRecord("b")]
        )
        for k in range(400)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        dataset_import(dataset=dataset, records=records)
    assert _planner_rows(Item) == Item.objects.count() >= 400
    assert _planner_rows(Reference) == Reference.objects.count() >= 800


@postgresql_only
def test_a_release_freeze_refreshes_the_planners_statistics(
    owner, django_capture_on_commit_callbacks
):
    dataset = Dataset.objects.create(owner=owner, name="Big", slug="big")
    records = [
        ItemRecord(k + 1, f"i{k}", "dev", ["hi"], "", [ReferenceRecord(f"r{j}") for j in range(5)])
        for k in range(250)
    ]
    dataset_import(dataset=dataset, records=records)
    with django_capture_on_commit_callbacks(execute=True):
        release = release_freeze(
            dataset=dataset, version="1.0.0", created_by=owner, campaign=None, unrated="zero"
        )
    assert ReleaseReference.objects.filter(release=release).count() == 1250
    assert _planner_rows(ReleaseReference) == ReleaseReference.objects.count()
    assert _planner_rows(ReleaseItem) == ReleaseItem.objects.count()


def test_small_writes_leave_the_statistics_to_autovacuum(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        analyze_after_commit(Item, rows=ANALYZE_MIN_ROWS - 1)
    assert callbacks == []
    with django_capture_on_commit_callbacks() as callbacks:
        analyze_after_commit(Item, rows=ANALYZE_MIN_ROWS)
    assert len(callbacks) == (1 if connection.vendor == "postgresql" else 0)
