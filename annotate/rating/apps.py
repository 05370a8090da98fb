import core.appconfig


class RatingConfig(core.appconfig.ProductAppConfig):
    name = "annotate.rating"
    verbose_name = "Rating campaigns, quality control and weights"
    # receivers: new references join open campaigns (register() connects the signals).
    work_modules = ("annotate.rating.tasks", "annotate.rating.receivers")
