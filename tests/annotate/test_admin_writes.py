"""What staff can write in the Django admin: never a 500, and never a release's frozen rows."""

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import RequestFactory

from annotate.releases.admin import SNAPSHOT_MODELS
from annotate.releases.models import Release, ReleaseItem
from annotate.releases.services.freeze import release_freeze
from tests.admin_kit import ADMIN_MODELS, admin_url
from tests.query_world import _own_storage, build_world, grow  # noqa: F401
from tests.writes_kit import status_undone

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(client):
    user = User.objects.create_superuser("root", "root@example.org", "a-long-test-password-42")
    client.force_login(user)
    client.raise_request_exception = False  # a crash is a 500 to look at, not a test error
    return user


def form_as_posted(model_admin, request, obj) -> dict:
    """The change form's POST with every field as it stands (inline formsets empty)."""
    form = model_admin.get_form(request, obj)(instance=obj)
    data: dict = {}
    for name in form.fields:
        value = form[name].value()
        if value is None or value is False:
            continue  # an unchecked box or an empty choice is absent from a real POST
        data[name] = [str(v) for v in value] if isinstance(value, list | tuple) else str(value)
    for formset, _inline in model_admin.get_formsets_with_inlines(request, obj):
        prefix = formset.get_default_prefix()
        data |= {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}
    return data


def admin_writes(request, model, obj) -> list[tuple[str, str, dict]]:
    """(what, url, POST) of each way the admin adds a row like `obj`, or changes or deletes it."""
    change = form_as_posted(admin.site._registry[model], request, obj)
    bulk = {"action": "delete_selected", "_selected_action": [obj.pk], "post": "yes"}
    return [
        ("add a copy", admin_url(model, "add"), change),
        ("add nothing", admin_url(model, "add"), {}),
        ("change", admin_url(model, "change", obj.pk), change),
        ("delete", admin_url(model, "delete", obj.pk), {"post": "yes"}),
        ("bulk delete", admin_url(model, "changelist"), bulk),
    ]


@pytest.mark.slow  # every model's writes in a grown world: make test and CI, not test-fast
def test_no_admin_write_answers_500(client, superuser, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        grow(build_world(), 0)
    request = RequestFactory().get("/")
    request.user = superuser
    crashed = []
    for model in ADMIN_MODELS:
        for obj in model._default_manager.all()[:2]:
            for what, url, data in admin_writes(request, model, obj):
                if status_undone(lambda: client.post(url, data)) >= 500:  # noqa: B023 (called now)
                    crashed.append(f"{what} {model._meta.label} {obj.pk}")
    assert crashed == []


def test_a_published_releases_rows_cannot_be_changed_in_the_admin(make_release, client, superuser):
    release = make_release()
    before = [model.objects.filter(release=release).count() for model in SNAPSHOT_MODELS]
    for model in SNAPSHOT_MODELS[:2]:  # items and references (this release has no ratings)
        row = model.objects.filter(release=release).first()
        assert client.get(admin_url(model, "change", row.pk)).status_code == 200  # to look at
        assert client.post(admin_url(model, "change", row.pk), {}).status_code == 403
        assert client.post(admin_url(model, "delete", row.pk), {"post": "yes"}).status_code == 403
        assert client.get(admin_url(model, "add")).status_code == 403
    assert [model.objects.filter(release=release).count() for model in SNAPSHOT_MODELS] == before


def test_a_drafts_rows_go_with_it_but_not_alone(owner, make_dataset, client, superuser):
    dataset = make_dataset()
    draft = release_freeze(
        dataset=dataset, version="0.1.0", created_by=owner, campaign=None, unrated="zero"
    )
    item = ReleaseItem.objects.filter(release=draft).first()
    alone = client.post(admin_url(ReleaseItem, "delete", item.pk), {"post": "yes"})
    assert alone.status_code == 403
    page = client.get(admin_url(Release, "delete", draft.pk))
    assert page.status_code == 200 and b"Yes, I" in page.content  # no permission missing
    answer = client.post(admin_url(Release, "delete", draft.pk), {"post": "yes"})
    assert answer.status_code == 302
    assert not Release.objects.filter(pk=draft.pk).exists()
    assert not ReleaseItem.objects.filter(release_id=draft.pk).exists()


def test_a_published_release_cannot_be_deleted_in_the_admin(make_release, client, superuser):
    release = make_release()
    assert client.post(admin_url(Release, "delete", release.pk), {"post": "yes"}).status_code == 403
    bulk = {"action": "delete_selected", "_selected_action": [release.pk], "post": "yes"}
    assert client.post(admin_url(Release, "changelist"), bulk).status_code == 403
    assert Release.objects.filter(pk=release.pk).exists()
