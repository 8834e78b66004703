from django.apps import AppConfig


class SavepointsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "savepoints"
    verbose_name = "Savepoints"
