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
    # The database checks them on the insert: a savepoint, the insert and its release. The owner
    # was read from the database, so its existence is not asked again.
    dataset = Dataset(owner=owner, slug="cheap", name="Cheap")
    with django_assert_num_queries(3):
        insert_checked(dataset)
    assert Dataset.objects.filter(slug="cheap").exists()


def test_a_relation_given_by_id_is_checked_and_a_missing_one_named(
    owner, django_assert_num_queries
):
    with django_assert_num_queries(4):  # the owner's existence first, as a form's check
        insert_checked(Dataset(owner_id=owner.pk, slug="by-id", name="By id"))
    with pytest.raises(ValidationError) as caught:
        insert_checked(Dataset(owner_id=owner.pk + 1000, slug="nobody", name="Nobody"))
    assert "owner" in caught.value.message_dict
    assert not Dataset.objects.filter(slug="nobody").exists()


def test_a_relation_to_an_unsaved_or_deleted_object_is_still_refused(owner, other):
    from django.contrib.auth.models import User

    with pytest.raises(ValidationError) as unsaved:
        insert_checked(Dataset(owner=User(username="ghost"), slug="ghost", name="Ghost"))
    assert "owner" in unsaved.value.message_dict
    other.delete()
    with pytest.raises(ValidationError) as deleted:
        insert_checked(Dataset(owner=other, slug="gone", name="Gone"))
    assert "owner" in deleted.value.message_dict
    assert not Dataset.objects.filter(slug__in=["ghost", "gone"]).exists()
