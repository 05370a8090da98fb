"""Every app of the product runs its own AppConfig (a module with two AppConfig classes, the base
and the app's, would silently fall back to Django's default and register no work)."""

from django.apps import apps

from core.appconfig import ProductAppConfig
from core.runs.kinds import kind_names
from tests.admin_kit import OWN_APPS
from tests.deltableu.test_queues import HEAVY_KINDS


def test_every_app_uses_its_own_config():
    for label in OWN_APPS:
        config = apps.get_app_config(label)
        assert isinstance(config, ProductAppConfig) and type(config) is not ProductAppConfig


def test_the_apps_registered_every_kind_of_long_work():
    # Every kind is heavy work, listed once with its queue in the queues' test.
    assert kind_names() == HEAVY_KINDS


def test_the_migrations_hold_every_model_change(db):
    # A model change without its migration (a field, a constraint, a choice's label) would
    # leave every migrated database behind the code: it fails here, naming the change.
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:
        raise AssertionError(f"models changed without a migration:\n{out.getvalue()}") from exit_
