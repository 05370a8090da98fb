import core.appconfig


class RatingConfig(core.appconfig.ProductAppConfig):
    name = "annotate.rating"
    verbose_name = "Rating campaigns, quality control and weights"
    work_modules = ("annotate.rating.tasks",)
