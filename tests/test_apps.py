"""Every app of the product runs its own AppConfig (a module with two AppConfig classes, the base
and the app's, would silently fall back to Django's default and register no work)."""

from django.apps import apps

from core.appconfig import ProductAppConfig
from core.runs.kinds import kind_names
from tests.annotate.test_admin import OWN_APPS
from tests.deltableu.test_queues import HEAVY_KINDS


def test_every_app_uses_its_own_config():
    for label in OWN_APPS:
        config = apps.get_app_config(label)
        assert isinstance(config, ProductAppConfig) and type(config) is not ProductAppConfig


def test_the_apps_registered_every_kind_of_long_work():
    # Every kind is heavy work, listed once with its queue in the queues' test.
    assert kind_names() == HEAVY_KINDS
