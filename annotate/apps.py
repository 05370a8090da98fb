from django.apps import AppConfig


class AnnotateConfig(AppConfig):
    name = "annotate"
    verbose_name = "Annotation: datasets, references and raters"

    def ready(self) -> None:
        from annotate.run_kinds import register

        register()
