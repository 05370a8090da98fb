import core.appconfig


class StudyConfig(core.appconfig.ProductAppConfig):
    name = "scoring.study"
    verbose_name = "Metric–human correlation studies"
    work_modules = ("scoring.study.run_kinds",)
