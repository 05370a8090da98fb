import core.appconfig


class DatasetsConfig(core.appconfig.ProductAppConfig):
    name = "annotate.datasets"
    verbose_name = "Datasets: items, references and splits"
    work_modules = ("annotate.datasets.tasks",)
