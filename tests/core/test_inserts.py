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
