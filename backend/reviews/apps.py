from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "reviews"
    verbose_name = "Reviews"

    def ready(self) -> None:
        # Register the receiver: a version saved anywhere makes older reviews stale.
        import reviews.inbox  # noqa: F401
