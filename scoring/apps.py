from django.apps import AppConfig


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = "Scoring: submissions and leaderboards"

    def ready(self) -> None:
        from scoring.run_kinds import register

        register()
