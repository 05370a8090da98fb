"""Django admin: every model is registered, and its pages work with search and filters."""

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse

from tests.admin_kit import admin_url, own_models

pytestmark = pytest.mark.django_db


def test_every_model_of_ours_is_in_the_admin():
    assert own_models()
    missing = [m.__name__ for m in own_models() if m not in admin.site._registry]
    assert missing == []


@pytest.mark.slow  # three pages of every model: make test and CI, not test-fast
@pytest.mark.parametrize("model", own_models(), ids=lambda m: m.__name__)
def test_changelists_search_and_add_pages_load(model, staff, client_for, make_dataset):
    make_dataset()
    client = client_for(staff)
    base = admin_url(model, "changelist")
    assert client.get(base).status_code == 200
    assert client.get(base + "?q=chat").status_code == 200
    # An audit log (SplitReveal) is read-only: its add page is refused.
    as_staff = RequestFactory().get("/")
    as_staff.user = staff
    can_add = admin.site._registry[model].has_add_permission(as_staff)
    add = admin_url(model, "add")
    assert client.get(add).status_code == (200 if can_add else 403)
    obj = model.objects.first()
    if obj is not None:
        change = admin_url(model, "change", obj.pk)
        assert client.get(change).status_code == 200


@pytest.mark.parametrize("who, status", [("owner", 302), ("anonymous", 302), ("staff", 200)])
def test_the_admin_is_for_staff(client_for, who, status, user_named):
    user = user_named(who)
    assert client_for(user).get(reverse("admin:index")).status_code == status


def test_an_admin_that_orders_its_fields_shows_every_editable_one():
    # Weight and ReleaseReference list their own fields first (their statistics come first on the
    # model, from an abstract base): a field added to the model must not vanish from the form.
    from django.contrib.admin.utils import flatten

    ordered = {m: a for m, a in admin.site._registry.items() if m in own_models() and a.fields}
    assert {m.__name__ for m in ordered} >= {"Weight", "ReleaseReference"}
    for model, model_admin in ordered.items():
        editable = {f.name for f in model._meta.concrete_fields if f.editable and not f.primary_key}
        shown = {*flatten(model_admin.fields), *model_admin.readonly_fields}
        assert editable - shown == set(), model.__name__
