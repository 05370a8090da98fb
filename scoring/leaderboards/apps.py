import core.appconfig


class LeaderboardsConfig(core.appconfig.ProductAppConfig):
    name = "scoring.leaderboards"
    verbose_name = "Leaderboards, submissions and scores"
    work_modules = (
        "scoring.leaderboards.run_kinds",
        "scoring.leaderboards.tasks",
        "scoring.leaderboards.hooks",
    )
