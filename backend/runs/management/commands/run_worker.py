"""`manage.py run_worker --cluster NAME`: one more Celery worker for a cluster's runs, on this
host, beside those `manage.py serve` starts.

Several workers, on several hosts, may serve one cluster's queue: each run is taken by one
of them and driven by that worker's Spark session. The worker is the very command `serve`
starts (`runs.worker.worker_command`, so both name the queue alike), and replaces this
process, so a container's stop signal reaches Celery.
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.redis_check import RedisUnavailable, require_redis
from runs.clusters import cluster_list
from runs.worker import worker_command, worker_environment
from runtime.clusters import DEFAULT


class Command(BaseCommand):
    help = "Run a Celery worker for one cluster profile's runs (default: the default cluster)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--cluster", default=DEFAULT, help="a name of SPARK_CLUSTERS")

    def handle(self, *args: Any, **options: Any) -> None:
        cluster: str = options["cluster"]
        clusters = cluster_list()
        if cluster not in clusters:
            raise CommandError(
                f"There is no cluster {cluster!r} on this server; the clusters are: "
                f"{', '.join(clusters)} (SPARK_CLUSTERS)."
            )
        try:
            require_redis(settings.REDIS_URL)
        except RedisUnavailable as error:
            raise CommandError(str(error)) from error
        command = worker_command(cluster=cluster)
        os.execve(command[0], command, worker_environment())
