import core.appconfig


class DemoConfig(core.appconfig.ProductAppConfig):
    name = "scoring.demo"
    verbose_name = "Demo: a finished story through every app"
