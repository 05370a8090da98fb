import core.appconfig


class MiningConfig(core.appconfig.ProductAppConfig):
    name = "annotate.mining"
    verbose_name = "Mining candidate references (BM25)"
    work_modules = ("annotate.mining.run_kinds",)
