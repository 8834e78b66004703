from django.apps import AppConfig


class RunsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "runs"
    verbose_name = "Runs"

    def ready(self) -> None:
        # Runs are queued by the web server, not only run by workers: every process needs
        # the project's Celery app (its Redis broker) before a task is sent.
        import config.celery  # noqa: F401

        # Also registered by importing: the check of the cluster settings, the removal of a
        # deleted workspace's data folder, and the reaper every Celery worker starts.
        import runs.clusters
        import runs.data_folders
        import runs.reaper  # noqa: F401
