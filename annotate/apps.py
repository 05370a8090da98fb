from typing import Any

from django.apps import AppConfig
from django.core import checks
from django.db import connections
from django.db.models.signals import post_migrate


def _install_release_triggers(using: str, **kwargs: Any) -> None:
    from annotate.release_triggers import install_frozen_triggers

    install_frozen_triggers(connections[using])


def _check_release_triggers(databases: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    from annotate.release_triggers import missing_frozen_triggers

    errors: list[checks.CheckMessage] = []
    for alias in databases or ():
        connection = connections[alias]
        if "annotate_release" not in connection.introspection.table_names():
            continue  # not migrated yet (migrate runs this check first): migrate installs them
        missing = missing_frozen_triggers(connection)
        if missing:
            errors.append(
                checks.Error(
                    f"published releases are unguarded: triggers {', '.join(missing)} missing",
                    hint="run `manage.py migrate` (it installs them after every migration)",
                    id="annotate.E001",
                )
            )
    return errors


class AnnotateConfig(AppConfig):
    name = "annotate"
    verbose_name = "Annotation: datasets, references and raters"

    def ready(self) -> None:
        from annotate.run_kinds import register

        register()
        from annotate import tasks  # noqa: F401  (registered: services send work by task name)

        # After every migrate, so a later migration's table rebuild never leaves them out.
        post_migrate.connect(_install_release_triggers, sender=self, dispatch_uid="frozen")
        checks.register(_check_release_triggers, checks.Tags.database)
