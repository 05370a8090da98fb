from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "core.runs"
    label = "runs"
    verbose_name = "Runs of long work"

    def ready(self) -> None:
        from core.runs import (
            signals,  # noqa: F401  (a starting worker sweeps at once)
            tasks,  # noqa: F401  (registered: work is sent by task name)
        )
