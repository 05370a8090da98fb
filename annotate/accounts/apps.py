import core.appconfig


class AccountsConfig(core.appconfig.ProductAppConfig):
    name = "annotate.accounts"
    verbose_name = "Accounts, roles and invitations"
