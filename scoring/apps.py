from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring: submissions and leaderboards"

    def ready(self) -> None:
        from scoring.run_kinds import register

        register()
        from scoring import tasks  # noqa: F401  (registered: services send work by task name)
