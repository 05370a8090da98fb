"""core.forms.RowsField: rows chosen by id, and an id no database key can be is a form error."""

import pytest
from django import forms
from django.contrib.auth.models import User

from core.forms import RowsField

pytestmark = pytest.mark.django_db


class Chosen(forms.Form):
    users = RowsField(queryset=User.objects.all())


@pytest.mark.parametrize("given", ["99999999999999999999", "-1", "1.5", "²", "0x1", " 1"])
def test_a_value_no_key_can_be_is_a_form_error_naming_it(given):
    form = Chosen({"users": [given]})
    assert not form.is_valid()
    assert form.errors["users"] == [f"“{given}” is not a valid value."]


def test_ids_of_rows_are_chosen(owner, other):
    form = Chosen({"users": [str(owner.pk), str(other.pk)]})
    assert form.is_valid()
    assert set(form.cleaned_data["users"]) == {owner, other}


def test_an_id_of_no_row_is_not_a_choice(owner):
    form = Chosen({"users": ["987654"]})
    assert not form.is_valid()
    assert "987654 is not one of the available choices" in form.errors["users"][0]
