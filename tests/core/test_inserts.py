"""core.inserts: a unique value taken between the check and the insert is a field's error."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError

from annotate.datasets.models import Dataset
from core.inserts import insert_checked

pytestmark = pytest.mark.django_db


def test_a_slug_taken_between_the_check_and_the_insert_names_the_field(owner, monkeypatch):
    dataset = Dataset(owner=owner, slug="racy", name="Racy")
    checked = Dataset.full_clean

    def check_then_lose_the_race(self, *args, **kwargs):
        checked(self, *args, **kwargs)
        Dataset.objects.create(owner=owner, slug="racy", name="First")

    monkeypatch.setattr(Dataset, "full_clean", check_then_lose_the_race)
    with pytest.raises(ValidationError) as caught:
        insert_checked(dataset)
    assert "slug" in caught.value.message_dict
    assert list(Dataset.objects.values_list("name", flat=True)) == ["First"]


def test_another_integrity_error_is_not_disguised(owner, monkeypatch):
    dataset = Dataset(owner=owner, slug="fine", name="Fine")

    def broken_insert(self, *args, **kwargs):
        raise IntegrityError("a constraint no check knows")

    monkeypatch.setattr(Dataset, "save", broken_insert)
    with pytest.raises(IntegrityError):
        insert_checked(dataset)


def test_a_broken_check_constraint_is_the_constraints_message_and_no_row(owner):
    dataset = Dataset(owner=owner, slug="upside", name="Upside", scale_min=5, scale_max=1)
    with pytest.raises(ValidationError) as caught:
        insert_checked(dataset)
    assert "dataset_scale_min_lt_max" not in str(caught.value)  # its message, not its name
    assert caught.value.messages
    assert not Dataset.objects.exists()


def test_the_constraints_cost_no_query_before_the_insert(owner, django_assert_num_queries):
    # The database checks them on the insert. The queries: the owner's existence (a field's
    # check, as a form's), then a savepoint, the insert and its release.
    dataset = Dataset(owner=owner, slug="cheap", name="Cheap")
    with django_assert_num_queries(4):
        insert_checked(dataset)
    assert Dataset.objects.filter(slug="cheap").exists()
