from typing import Any

from django.core import checks
from django.db import connections
from django.db.models.signals import post_migrate

import core.appconfig


def _install_release_triggers(using: str, **kwargs: Any) -> None:
    from annotate.releases.triggers import install_frozen_triggers

    install_frozen_triggers(connections[using])


def _check_release_triggers(databases: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    from annotate.releases.models import Release
    from annotate.releases.triggers import missing_frozen_triggers

    errors: list[checks.CheckMessage] = []
    for alias in databases or ():
        connection = connections[alias]
        if Release._meta.db_table not in connection.introspection.table_names():
            continue  # not migrated yet (migrate runs this check first): migrate installs them
        missing = missing_frozen_triggers(connection)
        if missing:
            errors.append(
                checks.Error(
                    f"published releases are unguarded: triggers {', '.join(missing)} missing",
                    hint="run `manage.py migrate` (it installs them after every migration)",
                    id="releases.E001",
                )
            )
    return errors


class ReleasesConfig(core.appconfig.ProductAppConfig):
    name = "annotate.releases"
    verbose_name = "Frozen, versioned dataset releases"
    work_modules = ("annotate.releases.run_kinds",)

    def ready(self) -> None:
        super().ready()
        # After every migrate, so a later migration's table rebuild never leaves them out.
        post_migrate.connect(_install_release_triggers, sender=self, dispatch_uid="frozen")
        checks.register(_check_release_triggers, checks.Tags.database)
