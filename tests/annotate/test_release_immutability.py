"""A published release cannot change, whatever the code path: the database refuses."""

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotate.releases.models import Release, ReleaseItem, ReleaseReference, ReleaseStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(owner, make_dataset):
    release = Release.objects.create(dataset=make_dataset(), version="1.0.0", created_by=owner)
    item = ReleaseItem.objects.create(
        release=release, split="dev", external_id="a", message="hi", position=0
    )
    ReleaseReference.objects.create(release=release, item=item, position=0, text="hello", weight=1)
    return release


def publish(release):
    Release.objects.filter(pk=release.pk).update(
        status=ReleaseStatus.PUBLISHED, published_at=timezone.now()
    )
    release.refresh_from_db()
    return release


def refused(change):
    with pytest.raises(IntegrityError), transaction.atomic():
        change()


def test_a_draft_can_still_change(release):
    ReleaseReference.objects.filter(release=release).update(weight=0.5)
    Release.objects.filter(pk=release.pk).update(license="MIT")
    ReleaseItem.objects.create(
        release=release, split="dev", external_id="b", message="m", position=1
    )


def test_the_snapshot_of_a_published_release_cannot_change(release):
    publish(release)
    refused(lambda: ReleaseReference.objects.filter(release=release).update(weight=0.5))
    refused(lambda: ReleaseItem.objects.filter(release=release).update(message="changed"))
    refused(lambda: ReleaseReference.objects.filter(release=release).delete())
    refused(
        lambda: ReleaseItem.objects.create(
            release=release, split="dev", external_id="b", message="m", position=1
        )
    )
    assert ReleaseReference.objects.get(release=release).weight == 1


def test_a_published_release_cannot_be_edited_unpublished_or_deleted(release):
    publish(release)
    release.license = "MIT"
    refused(release.save)
    refused(lambda: Release.objects.filter(pk=release.pk).update(status=ReleaseStatus.DRAFT))
    refused(lambda: Release.objects.filter(pk=release.pk).update(version="2.0.0"))
    refused(lambda: Release.objects.get(pk=release.pk).delete())
    assert Release.objects.get(pk=release.pk).license == "CC-BY-4.0"


def test_revealing_a_split_and_caching_the_archive_stay_possible(release):
    publish(release)
    Release.objects.filter(pk=release.pk).update(
        public_splits=["dev", "test"], archive_name="x.zip", manifest_checksum="0" * 64
    )


@pytest.mark.django_db(transaction=True)
def test_a_table_rebuild_loses_no_guard_once_migrate_has_run(release):
    """SQLite rebuilds a table to alter it and drops its triggers; PostgreSQL keeps them. Either
    way the next `migrate` installs them again, and the database check names what is missing."""
    from django.core.management import call_command
    from django.db import connection

    from annotate.releases.apps import _check_release_triggers
    from annotate.releases.triggers import drop_frozen_triggers, missing_frozen_triggers

    publish(release)
    drop_frozen_triggers(connection)  # what a table rebuild does to a table's triggers
    assert missing_frozen_triggers(connection)
    assert [e.id for e in _check_release_triggers(databases=["default"])] == ["releases.E001"]
    call_command("migrate", verbosity=0)
    assert missing_frozen_triggers(connection) == []
    assert _check_release_triggers(databases=["default"]) == []
    refused(lambda: ReleaseReference.objects.filter(release=release).update(weight=0))


def test_the_trigger_check_lets_a_fresh_database_migrate(monkeypatch):
    """`migrate` runs the database checks before it creates any table: an empty database has no
    releases to guard, and migrate installs the triggers at its end."""
    from django.db import connection

    from annotate.releases import triggers as release_triggers
    from annotate.releases.apps import _check_release_triggers

    # An empty database: no tables, and so no triggers either.
    monkeypatch.setattr(connection.introspection, "table_names", lambda *a, **k: [])
    monkeypatch.setattr(release_triggers, "missing_frozen_triggers", lambda c: ["all of them"])
    assert _check_release_triggers(databases=["default"]) == []
