import core.appconfig


class JudgmentsConfig(core.appconfig.ProductAppConfig):
    name = "annotate.judgments"
    verbose_name = "Evaluated systems, outputs and imported judgments"
