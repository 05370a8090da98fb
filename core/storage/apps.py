from django.apps import AppConfig


class StorageConfig(AppConfig):
    name = "core.storage"
    label = "storage"
    verbose_name = "File storage"
