from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        # Registers the receiver that counts failed sign-ins, whichever page they come from.
        import accounts.backends  # noqa: F401
