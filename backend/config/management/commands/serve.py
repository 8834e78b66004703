"""`manage.py serve`: the whole product on one port: ASGI server plus a Celery worker per
cluster (none with `--no-worker`, when `manage.py worker` runs them elsewhere).

The workers execute runs (`runs.worker`); each is started again if it dies. This process
fails the runs whose worker was lost (`runs.reaper`) every few seconds.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.asgi_server import uvicorn_command
from config.redis_check import RedisUnavailable, require_redis
from runs.clusters import cluster_list
from runs.reaper import reap_lost_runs_forever
from runs.worker import Workers, stop_children, stop_on_sigterm, worker_environment


class Command(BaseCommand):
    help = "Serve HTTP and websockets (uvicorn) and run the Celery workers until interrupted."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-worker", action="store_true", help="do not start Celery")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            require_redis(settings.REDIS_URL)
        except RedisUnavailable as error:
            raise CommandError(str(error)) from error
        env = worker_environment()
        clusters = [] if options["no_worker"] else list(cluster_list())
        workers = Workers(clusters, env=env, say=self.stderr.write)
        server = subprocess.Popen(
            uvicorn_command(host=options["host"], port=options["port"]), env=env
        )
        self.stdout.write(f"StreamGraph Studio on http://{options['host']}:{options['port']}/")
        stop_on_sigterm()
        # Runs whose worker died are failed from here too, so that happens when the only
        # worker is the one that died.
        stop = threading.Event()
        threading.Thread(
            target=reap_lost_runs_forever,
            args=(stop,),
            kwargs={"period": settings.RUN_HEARTBEAT_SECONDS},
            name="run-reaper",
            daemon=True,
        ).start()
        try:
            while server.poll() is None:
                time.sleep(1)
                workers.watch()
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
            stop_children([server, *workers.processes.values()], timeout=10)
