"""update_by_pk writes each row its own values, whatever their types, in one query a batch."""

from datetime import UTC, datetime

import pytest

from annotate.datasets.models import Dataset
from core.bulk import update_by_pk

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
