from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        # Register the receivers: failed sign-ins are counted whichever page they come from,
        # and access changes reach open sockets whatever made them.
        import accounts.backends
        import accounts.sockets  # noqa: F401
